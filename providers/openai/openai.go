// Package openai speaks both of OpenAI's APIs through go-openai: the
// Responses API (CreateResponseStream; OpenAI's default, and the only one
// for Codex models) and Chat Completions (CreateChatCompletionStream; every
// OpenAI-compatible server such as Ollama, llama.cpp, vLLM, LM Studio and
// OpenRouter). Text, usage, structured output, errors and retries behave
// the same on both. The SDK builds and sends each request and reports an
// error status; the stream's lines are read here (eventlines.go), and the
// text events that make up nearly all of a stream are decoded here
// (textdelta.go), every other event by the SDK's own types.
package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// DefaultBaseURL is OpenAI's own endpoint.
const DefaultBaseURL = "https://api.openai.com/v1"

// Provider is one configured OpenAI or OpenAI-compatible endpoint.
type Provider struct {
	name       string
	api        string // the entry's API: responses or chat
	compatible bool   // an OpenAI-compatible server, which may lack /v1/responses
	client     *openai.Client
	timeout    time.Duration
}

// New builds the provider of a spec of type openai or openai-compatible.
// A missing key yields a provider whose every Stream fails naming the
// variable to set.
func New(name string, spec providers.Spec, getenv func(string) string) (providers.Provider, error) {
	compatible := spec.Type == "openai-compatible"
	envVar, def := "OPENAI_BASE_URL", DefaultBaseURL
	if compatible {
		envVar, def = "", "" // a compatible server must say where it is
	}
	baseURL, err := adapt.ResolveBaseURL(spec, getenv, envVar, def)
	if err != nil {
		return nil, err
	}
	api := spec.API
	switch {
	case api == "" && compatible:
		api = "chat"
	case api == "":
		api = "responses"
	case api != "responses" && api != "chat":
		return nil, errors.New(`api must be "responses" or "chat", not "` + api + `"`)
	}
	key := providers.LookupKey(spec, getenv)
	if key == "" && len(providers.KeyVars(spec)) > 0 {
		return adapt.MissingKey(name, spec), nil
	}
	cfg := openai.DefaultConfig(key) // an empty key sends no Authorization header
	cfg.BaseURL = baseURL
	cfg.HTTPClient = bodyDoer{client: adapt.NewHTTPClient()} // streams are read by eventLines
	return &Provider{name: name, api: api, compatible: compatible, client: openai.NewClientWithConfig(cfg), timeout: adapt.Timeout(spec)}, nil
}

// Name implements providers.Provider.
func (p *Provider) Name() string { return p.name }

// API is the API a request for info's model goes to: the model's own when
// the catalogue says it is served by one API only, else the entry's.
func (p *Provider) API(info providers.ModelInfo) string {
	if info.API == "responses" || info.API == "chat" {
		return info.API
	}
	return p.api
}

// APIFor is the API req goes to: a tool-using agent's request on a model
// whose catalogue entry says tools need the Responses API (gpt-5.4+,
// gpt-6+: Chat Completions refuses them with an effort set) goes there on
// OpenAI itself; a compatible server keeps Chat Completions and is sent no
// effort instead (see chatRequest).
//
// A request with a server-side search goes to the Responses API on
// OpenAI itself (Chat Completions has no web_search tool); a compatible
// server is sent none.
func (p *Provider) APIFor(req providers.Request) string {
	if p.compatible {
		return p.API(req.Info)
	}
	if (usesTools(req) && req.Info.ToolsAPI == "responses") || len(req.ServerTools) > 0 {
		return "responses"
	}
	return p.API(req.Info)
}

// usesTools reports a request that offers the model tools, natively or
// through the workspace protocol.
func usesTools(req providers.Request) bool { return req.Meta.Tools || len(req.Tools) > 0 }

// Stream implements providers.Provider.
func (p *Provider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	if !req.Info.Known && req.Info.Provider == "" {
		req.Info = providers.Family(req.Model) // a request built without the catalogue
	}
	if p.APIFor(req) == "responses" {
		return p.streamResponses(ctx, req)
	}
	return p.streamChat(ctx, req)
}

func (p *Provider) badRequest(err error) error {
	return &providers.Error{Provider: p.name, Kind: providers.KindBadRequest, Message: err.Error(), Err: err}
}

// Models lists the model IDs the endpoint serves (GET /models).
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	list, err := p.client.ListModels(ctx)
	if err != nil {
		return nil, adapt.ClassifyError(p.name, err, ctx, ctx, p.timeout, nil, apiError)
	}
	out := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, m.ID)
	}
	return out, nil
}

// apiError maps go-openai's errors; nil for anything else.
func apiError(err error, h http.Header) *providers.Error {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		if apiErr.HTTPStatusCode == 0 {
			// An error object inside a 200 stream: classify by its type.
			return &providers.Error{Kind: streamErrorKind(apiErr.Type, codeString(apiErr.Code)), Message: apiErr.Message, Err: err}
		}
		pe := adapt.HTTPError(apiErr.HTTPStatusCode, apiErr.Message, h, err)
		switch codeString(apiErr.Code) {
		case "invalid_api_key":
			pe.Kind = providers.KindAuth
		case "insufficient_quota":
			// A 429 that waiting will not fix: the account is out of credit.
			pe.Kind = providers.KindBadRequest
		}
		return pe
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		msg := strings.TrimSpace(string(reqErr.Body))
		if msg == "" && reqErr.Err != nil {
			msg = reqErr.Err.Error()
		}
		return adapt.HTTPError(reqErr.HTTPStatusCode, msg, h, err)
	}
	var streamErr *responseStreamError
	if errors.As(err, &streamErr) {
		return &providers.Error{Kind: streamErrorKind(streamErr.typ, streamErr.code), Message: streamErr.message, Err: err}
	}
	if errors.Is(err, openai.ErrTooManyEmptyStreamMessages) {
		return &providers.Error{Kind: providers.KindOther, Message: "the server sent a stream without data", Err: err}
	}
	return nil
}

func codeString(code any) string {
	s, _ := code.(string)
	return s
}

// streamErrorKind classifies an error reported inside a stream by its type
// and code (server_error, rate_limit_exceeded, ...).
func streamErrorKind(typ, code string) providers.ErrorKind {
	t := strings.ToLower(typ + " " + code)
	switch {
	case strings.Contains(t, "insufficient_quota"):
		return providers.KindBadRequest
	case strings.Contains(t, "rate_limit"):
		return providers.KindRateLimit
	case strings.Contains(t, "server_error"), strings.Contains(t, "overloaded"), strings.Contains(t, "unavailable"):
		return providers.KindServer
	case strings.Contains(t, "invalid_api_key"), strings.Contains(t, "authentication"):
		return providers.KindAuth
	case strings.Contains(t, "invalid_request"), strings.Contains(t, "invalid_prompt"), strings.Contains(t, "not_found"):
		return providers.KindBadRequest
	}
	return providers.KindOther
}
