package providers

import (
	"context"
	"errors"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"
)

const defaultGeminiBaseURL = "https://generativelanguage.googleapis.com/"

// geminiProvider speaks the Gemini API (not Vertex AI) through genai.
type geminiProvider struct {
	name    string
	client  *genai.Client
	timeout time.Duration
}

func newGemini(name string, spec Spec, getenv func(string) string) (Provider, error) {
	baseURL, err := resolveBaseURL(spec, getenv, "GOOGLE_GEMINI_BASE_URL", defaultGeminiBaseURL)
	if err != nil {
		return nil, err
	}
	key := lookupKey(spec, getenv)
	if key == "" {
		return newMissingKey(name, spec), nil
	}
	// Backend, key and base URL are all explicit, so genai reads none of
	// GOOGLE_GENAI_USE_VERTEXAI, GEMINI_API_KEY or GOOGLE_GEMINI_BASE_URL
	// itself. No RetryOptions: WithRetry retries.
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  newHTTPClient(),
		HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimRight(baseURL, "/") + "/"},
	})
	if err != nil {
		return nil, err
	}
	return &geminiProvider{name: name, client: client, timeout: specTimeout(spec)}, nil
}

func (p *geminiProvider) Name() string { return p.name }

func (p *geminiProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	contents, cfg, err := geminiRequest(req)
	if err != nil {
		return nil, &Error{Provider: p.name, Kind: KindBadRequest, Message: err.Error(), Err: err}
	}
	s := newPullStream(ctx, p.name, p.timeout, geminiError)
	// The request is sent on the first pull.
	next, stop := iter.Pull2(p.client.Models.GenerateContentStream(s.reqCtx, req.Model, contents, cfg))
	s.closeSDK = func() error { stop(); return nil }
	s.recv = func(res *Result) (string, error) {
		chunk, err, ok := next()
		if !ok {
			return "", io.EOF
		}
		if err != nil {
			return "", err
		}
		return geminiChunk(chunk, res), nil
	}
	return s, nil
}

// geminiError maps genai's APIError; nil for anything else. Gemini answers
// a bad key with 400 API_KEY_INVALID and a missing one with 403: both are
// auth errors. Retry-After comes from the header when the response had one,
// else from a google.rpc.RetryInfo detail.
func geminiError(err error, h http.Header) *Error {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		var ptr *genai.APIError
		if !errors.As(err, &ptr) || ptr == nil {
			return nil
		}
		apiErr = *ptr
	}
	status := apiErr.Code
	var pe *Error
	if status >= 400 {
		pe = httpError(status, apiErr.Message, h, err)
	} else {
		pe = &Error{Kind: geminiStatusKind(apiErr.Status), Message: apiErr.Message, Err: err}
	}
	if pe.Message == "" {
		pe.Message = apiErr.Status
	}
	for _, d := range apiErr.Details {
		if reason, _ := d["reason"].(string); reason == "API_KEY_INVALID" || reason == "API_KEY_EXPIRED" {
			pe.Kind = KindAuth
		}
		if delay, _ := d["retryDelay"].(string); delay != "" && pe.RetryAfter == 0 {
			if dur, perr := time.ParseDuration(delay); perr == nil && dur > 0 {
				pe.RetryAfter = dur
			}
		}
	}
	if strings.Contains(apiErr.Message, "API key not valid") {
		pe.Kind = KindAuth
	}
	return pe
}

// geminiStatusKind classifies a google.rpc status name, for error objects
// that arrive inside a stream without an HTTP status.
func geminiStatusKind(status string) ErrorKind {
	switch status {
	case "RESOURCE_EXHAUSTED":
		return KindRateLimit
	case "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED":
		return KindServer
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		return KindAuth
	case "INVALID_ARGUMENT", "NOT_FOUND", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return KindBadRequest
	}
	return KindOther
}
