package providers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

const defaultAnthropicBaseURL = "https://api.anthropic.com"

// anthropicProvider speaks the Messages API through anthropic-sdk-go.
type anthropicProvider struct {
	name    string
	client  anthropic.Client
	timeout time.Duration
}

func newAnthropic(name string, spec Spec, getenv func(string) string) (Provider, error) {
	baseURL, err := resolveBaseURL(spec, getenv, "ANTHROPIC_BASE_URL", defaultAnthropicBaseURL)
	if err != nil {
		return nil, err
	}
	key := lookupKey(spec, getenv)
	if key == "" {
		return newMissingKey(name, spec), nil
	}
	client := anthropic.NewClient(
		// Everything explicit: the machine's ANTHROPIC_* variables and
		// profiles must not override the configuration.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithBaseURL(baseURL),
		option.WithHTTPClient(newHTTPClient()),
		// Retries are WithRetry's job; the SDK's own would multiply them.
		option.WithMaxRetries(0),
	)
	return &anthropicProvider{name: name, client: client, timeout: specTimeout(spec)}, nil
}

func (p *anthropicProvider) Name() string { return p.name }

func (p *anthropicProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	params, err := anthropicRequest(req)
	if err != nil {
		return nil, &Error{Provider: p.name, Kind: KindBadRequest, Message: err.Error(), Err: err}
	}
	s := newPullStream(ctx, p.name, p.timeout, anthropicError)
	// The SDK sends the request here and reports its failure on Next.
	sdkStream := p.client.Messages.NewStreaming(s.reqCtx, params)
	s.closeSDK = sdkStream.Close
	s.recv = func(res *Result) (string, error) {
		for sdkStream.Next() {
			if text := anthropicEvent(sdkStream.Current(), res); text != "" {
				return text, nil
			}
		}
		if err := sdkStream.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	}
	return s, nil
}

// anthropicError maps the SDK's API errors (HTTP errors and error events in
// a stream); nil for anything else.
func anthropicError(err error, h http.Header) *Error {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return nil
	}
	errType, msg := anthropicErrorBody(apiErr.RawJSON())
	if apiErr.Response != nil && apiErr.Response.Header != nil {
		h = apiErr.Response.Header
	}
	status := apiErr.StatusCode
	if status >= 200 && status < 300 {
		// An error event inside a stream that had started fine: the type
		// says what happened (overloaded_error is the usual one).
		return &Error{Kind: anthropicErrorKind(errType), Message: msg, Err: err}
	}
	pe := httpError(status, msg, h, err)
	if errType == "authentication_error" || errType == "permission_error" {
		pe.Kind = KindAuth
	}
	return pe
}

// anthropicErrorBody reads {"type":"error","error":{"type":..,"message":..}}.
func anthropicErrorBody(raw string) (errType, message string) {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &body) != nil {
		return "", raw
	}
	if body.Error.Message == "" {
		return body.Error.Type, raw
	}
	return body.Error.Type, body.Error.Message
}

func anthropicErrorKind(errType string) ErrorKind {
	switch errType {
	case "overloaded_error", "api_error", "timeout_error":
		return KindServer
	case "rate_limit_error":
		return KindRateLimit
	case "authentication_error", "permission_error":
		return KindAuth
	case "invalid_request_error", "not_found_error", "request_too_large":
		return KindBadRequest
	}
	return KindOther
}
