// Package openaiapi is parley serve's OpenAI-compatible door: GET
// /v1/models and POST /v1/chat/completions, so any client that speaks the
// Chat Completions API (Open WebUI, LibreChat, Continue, the openai SDKs)
// can put a question to a council, to MAGI, to every agent at once or to
// one agent. Like every door it only runs the engine and reads its events:
// the deliberation streams as reasoning_content, the answer as content.
package openaiapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/sanitize"
)

// chatRequest is the part of CreateChatCompletionRequest Parley reads;
// every other field is accepted and ignored (see Ignored).
type chatRequest struct {
	Model               string            `json:"model"`
	Messages            []message         `json:"messages"`
	Stream              bool              `json:"stream"`
	StreamOptions       *streamOptions    `json:"stream_options"`
	MaxTokens           *int              `json:"max_tokens"`
	MaxCompletionTokens *int              `json:"max_completion_tokens"`
	ReasoningEffort     string            `json:"reasoning_effort"`
	User                string            `json:"user"`
	Metadata            map[string]string `json:"metadata"`
	N                   *int              `json:"n"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// message is one request message; Content is a string or an array of
// content parts, of which only text parts are read.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name"`
}

// Read lists the request fields Parley honours; Ignored the documented
// fields it accepts and ignores (docs/openai.md lists both).
var (
	Read    = []string{"model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "reasoning_effort", "user", "metadata", "n"}
	Ignored = []string{"temperature", "top_p", "stop", "seed", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs",
		"top_logprobs", "tools", "tool_choice", "parallel_tool_calls", "functions", "function_call", "response_format", "modalities",
		"audio", "prediction", "service_tier", "store", "verbosity", "web_search_options", "prompt_cache_key", "prompt_cache_retention",
		"safety_identifier"}
)

// usage is the Chat Completions usage object.
type usage struct {
	PromptTokens            int            `json:"prompt_tokens"`
	CompletionTokens        int            `json:"completion_tokens"`
	TotalTokens             int            `json:"total_tokens"`
	PromptTokensDetails     map[string]int `json:"prompt_tokens_details"`
	CompletionTokensDetails map[string]int `json:"completion_tokens_details"`
}

// Extension is the "parley" object on the final response (the last chunk
// when streaming): the session the request was saved as, what it cost and
// the whole deliberation.
type Extension struct {
	SessionID string `json:"session_id"`
	Saved     bool   `json:"saved"`
	Mode      string `json:"mode"`
	// Status is complete, truncated (an answer cut at its output limit:
	// finish_reason length), cancelled, capped or error.
	Status  string  `json:"status"`
	CostUSD float64 `json:"cost_usd"`
	// CostUnknown: a call had no price, so CostUSD is a lower bound.
	CostUnknown  bool   `json:"cost_unknown,omitempty"`
	Deliberation string `json:"deliberation"`
	// Ignored names the request's fields that were accepted and ignored.
	Ignored []string `json:"ignored,omitempty"`
	// Evidence is the session's evidence ledger (docs/tools.md): what the
	// members' tools returned, by id, without the text.
	Evidence []evidence.Record `json:"evidence,omitempty"`
}

type responseMessage struct {
	Role             string  `json:"role"`
	Content          string  `json:"content"`
	Refusal          *string `json:"refusal"`
	ReasoningContent string  `json:"reasoning_content,omitempty"`
}

type choice struct {
	Index        int             `json:"index"`
	Message      responseMessage `json:"message"`
	FinishReason string          `json:"finish_reason"`
	Logprobs     *struct{}       `json:"logprobs"`
}

// completion is a CreateChatCompletionResponse.
type completion struct {
	ID      string    `json:"id"`
	Object  string    `json:"object"`
	Created int64     `json:"created"`
	Model   string    `json:"model"`
	Choices []choice  `json:"choices"`
	Usage   usage     `json:"usage"`
	Parley  Extension `json:"parley"`
}

type delta struct {
	Role             string `json:"role,omitempty"`
	Content          string `json:"content,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// chunk is a CreateChatCompletionStreamResponse.
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	// Usage is null on every chunk but the last when include_usage is set.
	Usage  *usage     `json:"usage,omitempty"`
	Parley *Extension `json:"parley,omitempty"`
}

// model is one entry of GET /v1/models.
type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// Error is an OpenAI-shaped error: {"error":{"message","type","param","code"}}.
type Error struct {
	Status int `json:"-"`
	// RetryAfter, when set, is sent as the Retry-After header (a spend
	// window's refusal: until it resets).
	RetryAfter time.Duration `json:"-"`
	Message    string        `json:"message"`
	Type       string        `json:"type"`
	Param      *string       `json:"param"`
	Code       string        `json:"code"`
}

func (e *Error) Error() string { return e.Message }

// The error types Parley answers with (OpenAI's own names).
const (
	typeInvalid = "invalid_request_error"
	typeServer  = "server_error"
	typeQuota   = "insufficient_quota"
)

func errorf(status int, typ, code, format string, args ...any) *Error {
	return &Error{Status: status, Type: typ, Code: code, Message: fmt.Sprintf(format, args...)}
}

// badParam is a 400 about one request field.
func badParam(param, code, format string, args ...any) *Error {
	e := errorf(http.StatusBadRequest, typeInvalid, code, format, args...)
	e.Param = &param
	return e
}

// StatusError is an error that knows its HTTP status and code (serve's
// own errors: rate limits, caps, bad configuration).
type StatusError interface {
	error
	HTTPStatus() int
	ErrorCode() string
}

// asError makes any error an OpenAI-shaped one.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var se StatusError
	if errors.As(err, &se) {
		e := errorf(se.HTTPStatus(), TypeOf(se.HTTPStatus()), se.ErrorCode(), "%s", se.Error())
		if ra, ok := se.(interface{ RetryAfterDuration() time.Duration }); ok {
			e.RetryAfter = ra.RetryAfterDuration()
		}
		return e
	}
	return errorf(http.StatusInternalServerError, typeServer, "internal", "%s", err.Error())
}

// TypeOf is the OpenAI error type of an HTTP status.
func TypeOf(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusPaymentRequired:
		return typeQuota
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return typeServer
	}
	return typeInvalid
}

// WriteJSON writes v with the status, never cached; model text keeps <, >
// and & as they are (JSON strings cannot run as HTML). serve writes its
// own answers with it too.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = sanitize.NewJSONEncoder(w).Encode(v) // C1 and bidi only as \u escapes
}

// writeError answers with err as an OpenAI error. A run's failure is not
// worth retrying (it would run the council again), which the openai SDKs
// read from x-should-retry.
func writeError(w http.ResponseWriter, err error, ext ...*Extension) {
	e := asError(err)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	if e.Status != http.StatusTooManyRequests {
		w.Header().Set("X-Should-Retry", "false")
	}
	body := errorBody{Error: e}
	if len(ext) > 0 {
		body.Parley = ext[0]
	}
	WriteJSON(w, e.Status, body)
}

// errorBody is an error answer; a run that failed carries its parley
// extension too (the session that keeps what arrived, its status).
type errorBody struct {
	Error  *Error     `json:"error"`
	Parley *Extension `json:"parley,omitempty"`
}
