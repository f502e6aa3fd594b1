// Package anthropic speaks Anthropic's Messages API through anthropic-sdk-go.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// DefaultBaseURL is Anthropic's own endpoint.
const DefaultBaseURL = "https://api.anthropic.com"

// Provider is one configured Anthropic endpoint.
type Provider struct {
	name    string
	client  anthropic.Client
	timeout time.Duration
}

// New builds the provider of a spec of type anthropic.
func New(name string, spec providers.Spec, getenv func(string) string) (providers.Provider, error) {
	baseURL, err := adapt.ResolveBaseURL(spec, getenv, "ANTHROPIC_BASE_URL", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	key := providers.LookupKey(spec, getenv)
	if key == "" {
		return adapt.MissingKey(name, spec), nil
	}
	client := anthropic.NewClient(
		// Everything explicit: the machine's ANTHROPIC_* variables and
		// profiles must not override the configuration.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithBaseURL(baseURL),
		option.WithHTTPClient(adapt.NewHTTPClient()),
		// Retries are WithRetry's job; the SDK's own would multiply them.
		option.WithMaxRetries(0),
	)
	return &Provider{name: name, client: client, timeout: adapt.Timeout(spec)}, nil
}

// Name implements providers.Provider.
func (p *Provider) Name() string { return p.name }

// Stream implements providers.Provider.
func (p *Provider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	params, err := messageRequest(req)
	if err != nil {
		return nil, &providers.Error{Provider: p.name, Kind: providers.KindBadRequest, Message: err.Error(), Err: err}
	}
	s := adapt.NewPullStream(ctx, p.name, p.timeout, apiError)
	// The SDK sends the request here and reports its failure on Next.
	sdkStream := p.client.Messages.NewStreaming(s.ReqCtx, params)
	s.CloseSDK = func() error { return sdkStream.Close() } // Close holds Recv's lock: the stream it closes is current
	st := &toolState{}
	if req.Schema != nil && usesForcedTool(req.Model) {
		st.forced = adapt.SchemaName(req.Schema.Name, "respond")
	}
	pause := &pauser{client: p.client, params: params}
	s.Recv = func(res *providers.Result) (string, error) {
		for {
			for sdkStream.Next() {
				if text := st.streamEvent(sdkStream.Current(), res); text != "" {
					return text, nil
				}
			}
			if err := sdkStream.Err(); err != nil {
				pause.total(res)
				return "", err
			}
			if !pause.paused(res) {
				pause.total(res)
				return "", adapt.EndOfStream(res) // no message_delta stop_reason: cut
			}
			_ = sdkStream.Close()
			sdkStream = pause.resume(s.ReqCtx, st, res) // pause.go
		}
	}
	return s, nil
}

// apiError maps the SDK's API errors (HTTP errors and error events in
// a stream); nil for anything else.
func apiError(err error, h http.Header) *providers.Error {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return nil
	}
	errType, msg := errorBody(apiErr.RawJSON())
	if apiErr.Response != nil && apiErr.Response.Header != nil {
		h = apiErr.Response.Header
	}
	status := apiErr.StatusCode
	if status >= 200 && status < 300 {
		// An error event inside a stream that had started fine: the type
		// says what happened (overloaded_error is the usual one).
		return &providers.Error{Kind: errorKind(errType), Message: msg, Err: err}
	}
	pe := adapt.HTTPError(status, msg, h, err)
	if errType == "authentication_error" || errType == "permission_error" {
		pe.Kind = providers.KindAuth
	}
	return pe
}

// errorBody reads {"type":"error","error":{"type":..,"message":..}}.
func errorBody(raw string) (errType, message string) {
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

func errorKind(errType string) providers.ErrorKind {
	switch errType {
	case "overloaded_error", "api_error", "timeout_error":
		return providers.KindServer
	case "rate_limit_error":
		return providers.KindRateLimit
	case "authentication_error", "permission_error":
		return providers.KindAuth
	case "invalid_request_error", "not_found_error", "request_too_large":
		return providers.KindBadRequest
	}
	return providers.KindOther
}

// Models lists the model IDs the key may use (GET /v1/models).
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var out []string
	iter := p.client.Models.ListAutoPaging(ctx, anthropic.ModelListParams{})
	for iter.Next() {
		out = append(out, iter.Current().ID)
	}
	if err := iter.Err(); err != nil {
		return nil, adapt.ClassifyError(p.name, err, ctx, ctx, p.timeout, nil, apiError)
	}
	return out, nil
}
