// Package providers puts every model vendor behind one small streaming
// interface. This package holds only what the engine needs — the interface,
// request, usage and error types, the retry policy, the model catalogue and
// pricing — and no SDK: each adapter lives in its own subpackage (openai,
// anthropic, gemini, demo) and providers/open builds one from a config entry.
package providers

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Role of a message in a request. The engine folds every speaker other than
// the addressed agent into RoleUser content, so two roles are enough.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one message of a request's conversation.
type Message struct {
	Role    Role
	Content string
	// ToolCalls are the calls an assistant message made (see tools.go).
	ToolCalls []ToolCall
	// ToolResults answer the calls of the assistant message before a
	// RoleTool message.
	ToolResults []ToolResult
	// Replay is what the adapter put in Result.Replay for this assistant
	// message, returned untouched (thinking blocks, reasoning items).
	Replay string
}

// Schema asks for structured output. Adapters map it to the vendor's feature
// (OpenAI json_schema, Gemini responseSchema, Anthropic forced tool use) and
// the engine still parses the text tolerantly.
type Schema struct {
	Name        string
	Description string
	// JSON is a JSON Schema object (draft 2020-12 subset: type, properties,
	// required, enum, description).
	JSON map[string]any
}

// RetryNotice tells the caller a request failed and will be tried again.
type RetryNotice struct {
	Attempt int           // 1 for the first retry
	Wait    time.Duration // how long until the next attempt
	Err     error
}

// Request is one call to a model.
type Request struct {
	Model       string
	System      string
	Messages    []Message
	Schema      *Schema  // nil: free text
	MaxTokens   int      // 0: provider default
	Temperature *float64 // nil: provider default
	// Effort is how hard a reasoning model should think (low, medium,
	// high; "": the provider's default). Adapters send it in their
	// vendor's shape (OpenAI reasoning.effort, Anthropic
	// output_config.effort, Gemini thinkingConfig.thinkingLevel) only when
	// Info says the model accepts that level.
	Effort string
	// CachePrefix says the first CachePrefix messages reach the next
	// request of this agent unchanged (the engine only appends between
	// compactions). Adapters whose API takes explicit cache breakpoints
	// (Anthropic's cache_control) put one at its end; the others cache
	// repeated prefixes on their own. 0: none known.
	CachePrefix int
	// OnRetry, when set, is called before each retry wait.
	OnRetry func(RetryNotice)
	// Meta says what the request is for, so an offline provider (demo) can
	// answer from the structure of the request instead of its wording.
	Meta Meta
	// Tools are the functions the model may call this turn (nil: none);
	// ServerTools the searches the vendor may run itself.
	Tools       []ToolSpec
	ServerTools []ServerTool
	// Info is the catalogue entry of Model (zero: adapters apply the
	// family rules themselves): whether it reasons, takes a temperature,
	// its output limit and API.
	Info ModelInfo
}

// Purposes of a request (Meta.Purpose).
const (
	PurposeReply    = "reply"     // an agent's answer
	PurposeVote     = "vote"      // a structured vote (Schema set)
	PurposeOpen     = "open"      // a moderator opening a talk
	PurposeSummary  = "summary"   // a moderator's round summary
	PurposeClose    = "close"     // a moderator's closing words
	PurposeToolStep = "tool_step" // one step of the workspace tool protocol
)

// Meta describes a request's place in a session.
type Meta struct {
	Mode    string `json:"mode,omitempty"`    // mention, alternate, talk, magi, agent
	Purpose string `json:"purpose,omitempty"` // one of the Purpose constants
	Round   int    `json:"round,omitempty"`   // 1-based round or step, 0 when none
	Rounds  int    `json:"rounds,omitempty"`  // the planned number of rounds, 0 when open-ended
	Agent   string `json:"agent,omitempty"`   // the addressed agent's display name
	Tools   bool   `json:"tools,omitempty"`   // the workspace tool protocol is on
}

// Usage counts tokens of one call. InputTokens includes cached tokens;
// CachedTokens says how many of them were served from the provider's cache.
//
// CacheWriteTokens (Anthropic's cache_creation_input_tokens) are part of
// InputTokens too and priced apart; ReasoningTokens are part of
// OutputTokens (billed as output, never shown as text). PriceUnknown marks
// a usage whose model has no price in the catalogue, so its cost is not 0
// but unknown; Estimated a usage Parley counted itself because the
// provider's final figures never came (see Charge). Sums keep both marks.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
	// SearchCalls are the server-side searches the vendor ran and bills
	// per use (ModelInfo.SearchFee), at most MaxSearchCalls.
	SearchCalls  int  `json:"search_calls,omitempty"`
	PriceUnknown bool `json:"price_unknown,omitempty"`
	Estimated    bool `json:"estimated,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CachedTokens:     u.CachedTokens + o.CachedTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + o.ReasoningTokens,
		SearchCalls:      u.SearchCalls + o.SearchCalls,
		PriceUnknown:     u.PriceUnknown || o.PriceUnknown,
		Estimated:        u.Estimated || o.Estimated,
	}
}

// Total is input plus output tokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Result is what a finished stream reports.
type Result struct {
	Usage        Usage
	FinishReason string // "stop", "length", "tool_use", ... as the vendor says it
	// Detail is the vendor's explanation of an abnormal end when it gave
	// one: a refusal's text, a block reason.
	Detail string
	// Answered: the server accepted the request (HTTP 2xx) and began its
	// answer, so the prompt is billed even if nothing else came.
	Answered bool
	// ToolCalls are the calls the model asked for (FinishReason then is
	// the vendor's tool-use reason); the engine runs them and continues.
	ToolCalls []ToolCall
	// Sources are the pages a server-side search returned; SearchCalls
	// how many searches the vendor ran and bills per use.
	Sources     []Source
	SearchCalls int
	// Replay is adapter-private state the next request must send back
	// with this assistant message (Message.Replay).
	Replay string
	// Retried is what the failed attempts before this one consumed (see
	// WithRetry), each charged by Charge: the caller adds it to its own
	// charge of this attempt.
	Retried Usage
}

// Stream yields text deltas of one answer.
//
//	for s.Next() { use(s.Delta()) }
//	if err := s.Err(); err != nil { ... } // text seen so far is still valid
//	res := s.Result()
type Stream interface {
	// Next advances to the next text delta; false at the end or on error.
	Next() bool
	// Delta is the text of the current step (may be empty for usage-only chunks,
	// which Next skips).
	Delta() string
	// Err is the error that ended the stream, nil at a normal end.
	Err() error
	// Result is valid once Next returned false (partial usage on error).
	Result() Result
	// Close releases the connection; safe to call more than once.
	Close() error
}

// Provider opens streams against one configured endpoint.
type Provider interface {
	// Name is the provider entry's name in the configuration ("openai", "ollama").
	Name() string
	// Stream starts a request. Errors that happen before the first byte may be
	// returned here or by the first Next; callers handle both.
	Stream(ctx context.Context, req Request) (Stream, error)
}

// ErrorKind classifies provider failures for the retry policy and the user.
type ErrorKind string

const (
	KindAuth       ErrorKind = "auth"        // bad or missing key: never retried
	KindMissingKey ErrorKind = "missing_key" // no key configured: never sent
	KindRateLimit  ErrorKind = "rate_limit"  // 429
	KindServer     ErrorKind = "server"      // 500, 502, 503, 504, 529 (the retried ones)
	KindBadRequest ErrorKind = "bad_request" // other 4xx
	KindNetwork    ErrorKind = "network"     // connection refused, reset, cut stream
	KindTimeout    ErrorKind = "timeout"     // no complete answer within the provider's timeout: not retried
	KindCanceled   ErrorKind = "canceled"    // the user cancelled
	KindRefused    ErrorKind = "refused"     // the model refused or a safety filter blocked the answer
	KindTruncated  ErrorKind = "truncated"   // the answer was cut at the output limit
	KindEmpty      ErrorKind = "empty"       // the stream ended normally without any text
	KindTooLong    ErrorKind = "too_long"    // the prompt is over the model's context window: never sent
	KindOther      ErrorKind = "other"
)

// Error is the one error type every adapter returns, so the engine, the
// retry policy and the console need not know any SDK.
type Error struct {
	Provider   string
	Kind       ErrorKind
	Status     int           // HTTP status, 0 when none
	RetryAfter time.Duration // from Retry-After / retry-after-ms, 0 when absent
	Message    string        // the vendor's message, short
	Err        error         // the underlying error
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	switch {
	case e.Status != 0:
		return fmt.Sprintf("%s: %s (HTTP %d): %s", e.Provider, e.Kind, e.Status, msg)
	default:
		return fmt.Sprintf("%s: %s: %s", e.Provider, e.Kind, msg)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the policy may try the request again.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimit, KindServer:
		return true
	case KindNetwork:
		return true
	}
	return false
}

// AsError finds a *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var pe *Error
	ok := errors.As(err, &pe)
	return pe, ok
}

// KindOf returns the kind of err, KindCanceled for context cancellation and
// KindOther for anything unclassified.
func KindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.Canceled) {
		return KindCanceled
	}
	if pe, ok := AsError(err); ok {
		return pe.Kind
	}
	return KindOther
}

// KindForStatus maps an HTTP status to a kind; providers that answer auth
// problems with 400/403 (Gemini) refine it themselves.
func KindForStatus(status int) ErrorKind {
	switch {
	case status == 401 || status == 403:
		return KindAuth
	case status == 429:
		return KindRateLimit
	case status == 500, status == 502, status == 503, status == 504, status == 529:
		return KindServer
	case status >= 400 && status < 500:
		return KindBadRequest
	}
	return KindOther
}
