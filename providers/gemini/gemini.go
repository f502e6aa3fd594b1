// Package gemini speaks the Gemini API (not Vertex AI) through
// google.golang.org/genai.
package gemini

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// DefaultBaseURL is Google's Gemini API endpoint.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

// Provider is one configured Gemini endpoint.
type Provider struct {
	name    string
	client  *genai.Client
	timeout time.Duration
}

// New builds the provider of a spec of type gemini.
func New(name string, spec providers.Spec, getenv func(string) string) (providers.Provider, error) {
	baseURL, err := adapt.ResolveBaseURL(spec, getenv, "GOOGLE_GEMINI_BASE_URL", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	key := providers.LookupKey(spec, getenv)
	if key == "" {
		return adapt.MissingKey(name, spec), nil
	}
	// Backend, key and base URL are all explicit, so genai reads none of
	// GOOGLE_GENAI_USE_VERTEXAI, GEMINI_API_KEY or GOOGLE_GEMINI_BASE_URL
	// itself. No RetryOptions: WithRetry retries.
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  adapt.NewHTTPClient(),
		HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimRight(baseURL, "/") + "/"},
	})
	if err != nil {
		return nil, err
	}
	return &Provider{name: name, client: client, timeout: adapt.Timeout(spec)}, nil
}

// Name implements providers.Provider.
func (p *Provider) Name() string { return p.name }

// Stream implements providers.Provider.
func (p *Provider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	contents, cfg, err := generateRequest(req)
	if err != nil {
		return nil, &providers.Error{Provider: p.name, Kind: providers.KindBadRequest, Message: err.Error(), Err: err}
	}
	s := adapt.NewPullStream(ctx, p.name, p.timeout, apiError)
	// The request is sent on the first pull.
	next, stop := iter.Pull2(p.client.Models.GenerateContentStream(s.ReqCtx, req.Model, contents, cfg))
	s.CloseSDK = func() error { stop(); return nil }
	st := &toolState{}
	s.Recv = func(res *providers.Result) (string, error) {
		chunk, err, ok := next()
		if !ok {
			return "", adapt.EndOfStream(res) // no finishReason: cut
		}
		if err != nil {
			return "", err
		}
		return st.streamChunk(chunk, res), nil
	}
	return s, nil
}

// apiError maps genai's APIError; nil for anything else. Gemini answers
// a bad key with 400 API_KEY_INVALID and a missing one with 403: both are
// auth errors. Retry-After comes from the header when the response had one,
// else from a google.rpc.RetryInfo detail.
func apiError(err error, h http.Header) *providers.Error {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		var ptr *genai.APIError
		if !errors.As(err, &ptr) || ptr == nil {
			return nil
		}
		apiErr = *ptr
	}
	status := apiErr.Code
	var pe *providers.Error
	if status >= 400 {
		pe = adapt.HTTPError(status, apiErr.Message, h, err)
	} else {
		pe = &providers.Error{Kind: statusKind(apiErr.Status), Message: apiErr.Message, Err: err}
	}
	if pe.Message == "" {
		pe.Message = apiErr.Status
	}
	for _, d := range apiErr.Details {
		if reason, _ := d["reason"].(string); reason == "API_KEY_INVALID" || reason == "API_KEY_EXPIRED" {
			pe.Kind = providers.KindAuth
		}
		if delay, _ := d["retryDelay"].(string); delay != "" && pe.RetryAfter == 0 {
			if dur, perr := time.ParseDuration(delay); perr == nil && dur > 0 {
				pe.RetryAfter = dur
			}
		}
	}
	if strings.Contains(apiErr.Message, "API key not valid") {
		pe.Kind = providers.KindAuth
	}
	return pe
}

// statusKind classifies a google.rpc status name, for error objects
// that arrive inside a stream without an HTTP status.
func statusKind(status string) providers.ErrorKind {
	switch status {
	case "RESOURCE_EXHAUSTED":
		return providers.KindRateLimit
	case "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED":
		return providers.KindServer
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		return providers.KindAuth
	case "INVALID_ARGUMENT", "NOT_FOUND", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return providers.KindBadRequest
	}
	return providers.KindOther
}

// Models lists the model IDs the key may use (GET /v1beta/models), without
// the "models/" prefix.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var out []string
	for m, err := range p.client.Models.All(ctx) {
		if err != nil {
			return nil, adapt.ClassifyError(p.name, err, ctx, ctx, p.timeout, nil, apiError)
		}
		out = append(out, strings.TrimPrefix(m.Name, "models/"))
	}
	return out, nil
}
