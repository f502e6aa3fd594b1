package providers

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

const defaultOpenAIBaseURL = "https://api.openai.com/v1"

// openAIProvider speaks the Chat Completions API through go-openai: OpenAI
// itself and every OpenAI-compatible server (Ollama, llama.cpp, vLLM, ...).
type openAIProvider struct {
	name    string
	client  *openai.Client
	timeout time.Duration
}

func newOpenAI(name string, spec Spec, getenv func(string) string) (Provider, error) {
	compatible := spec.Type == "openai-compatible"
	envVar, def := "OPENAI_BASE_URL", defaultOpenAIBaseURL
	if compatible {
		envVar, def = "", "" // a compatible server must say where it is
	}
	baseURL, err := resolveBaseURL(spec, getenv, envVar, def)
	if err != nil {
		return nil, err
	}
	key := lookupKey(spec, getenv)
	if key == "" && len(KeyVars(spec)) > 0 {
		return newMissingKey(name, spec), nil
	}
	cfg := openai.DefaultConfig(key) // an empty key sends no Authorization header
	cfg.BaseURL = baseURL
	cfg.HTTPClient = newHTTPClient()
	// go-openai gives up after this many non-data lines in a row; proxies
	// such as OpenRouter send keep-alive comments while a model thinks.
	cfg.EmptyMessagesLimit = 10_000
	return &openAIProvider{
		name:    name,
		client:  openai.NewClientWithConfig(cfg),
		timeout: specTimeout(spec),
	}, nil
}

func (p *openAIProvider) Name() string { return p.name }

func (p *openAIProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	creq, err := openAIRequest(req)
	if err != nil {
		return nil, &Error{Provider: p.name, Kind: KindBadRequest, Message: err.Error(), Err: err}
	}
	s := newPullStream(ctx, p.name, p.timeout, openAIError)
	sdkStream, err := p.client.CreateChatCompletionStream(s.reqCtx, creq)
	if err != nil {
		perr := s.classify(err)
		s.cancel()
		return nil, perr
	}
	s.closeSDK = sdkStream.Close
	s.recv = func(res *Result) (string, error) {
		chunk, err := sdkStream.Recv()
		if err != nil {
			return "", err
		}
		return openAIChunk(chunk, res), nil
	}
	return s, nil
}

// openAIError maps go-openai's errors; nil for anything else.
func openAIError(err error, h http.Header) *Error {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		if apiErr.HTTPStatusCode == 0 {
			// An error object inside a 200 stream: classify by its type.
			return &Error{Kind: openAIStreamErrorKind(apiErr), Message: apiErr.Message, Err: err}
		}
		pe := httpError(apiErr.HTTPStatusCode, apiErr.Message, h, err)
		switch code, _ := apiErr.Code.(string); code {
		case "invalid_api_key":
			pe.Kind = KindAuth
		case "insufficient_quota":
			// A 429 that waiting will not fix: the account is out of credit.
			pe.Kind = KindBadRequest
		}
		return pe
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		msg := strings.TrimSpace(string(reqErr.Body))
		if msg == "" && reqErr.Err != nil {
			msg = reqErr.Err.Error()
		}
		return httpError(reqErr.HTTPStatusCode, msg, h, err)
	}
	if errors.Is(err, openai.ErrTooManyEmptyStreamMessages) {
		return &Error{Kind: KindOther, Message: "the server sent a stream without data", Err: err}
	}
	if isOpenAIValidationError(err) {
		return &Error{Kind: KindBadRequest, Message: err.Error(), Err: err}
	}
	return nil
}

func openAIStreamErrorKind(e *openai.APIError) ErrorKind {
	code, _ := e.Code.(string)
	t := strings.ToLower(e.Type + " " + code)
	switch {
	case strings.Contains(t, "insufficient_quota"):
		return KindBadRequest
	case strings.Contains(t, "rate_limit"):
		return KindRateLimit
	case strings.Contains(t, "server_error"), strings.Contains(t, "overloaded"):
		return KindServer
	case strings.Contains(t, "invalid_api_key"), strings.Contains(t, "authentication"):
		return KindAuth
	case strings.Contains(t, "invalid_request"):
		return KindBadRequest
	}
	return KindOther
}

// isOpenAIValidationError reports errors go-openai raises before sending.
func isOpenAIValidationError(err error) bool {
	for _, target := range []error{
		openai.ErrReasoningModelMaxTokensDeprecated,
		openai.ErrReasoningModelLimitationsLogprobs,
		openai.ErrReasoningModelLimitationsOther,
		openai.ErrReasoningSamplingUnsupported,
		openai.ErrReasoningEffortUnsupported,
		openai.ErrChatCompletionInvalidModel,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
