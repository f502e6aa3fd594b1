package debate

import (
	"encoding/json"
	"time"

	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Event is something that happened in a session. Every consumer (console,
// headless output, store) reads the same events, in the order emitted.
type Event interface {
	// EventType is the stable name used in JSON output ("turn_started", ...).
	EventType() string
}

// SessionStarted is emitted once when a session is created or resumed.
type SessionStarted struct {
	Session SessionInfo `json:"session"`
	Resumed bool        `json:"resumed"`
}

// SessionUpdated is emitted when the session's metadata changes (mode,
// title, mode state such as the next responder).
type SessionUpdated struct {
	Session SessionInfo `json:"session"`
}

// EntryAdded is emitted for entries that are complete when they appear:
// user messages, notes, verdicts, tool calls and results, errors.
type EntryAdded struct {
	Entry transcript.Entry `json:"entry"`
}

// TurnStarted is emitted when an agent turn has its place in the history.
// Answer is set for a turn whose text is the exchange's answer (the
// council's chairman, an addressed agent), not its deliberation.
type TurnStarted struct {
	Entry  transcript.Entry `json:"entry"`
	Answer bool             `json:"answer,omitempty"`
}

// TextDelta is a piece of an agent's streaming answer. For a structured
// answer (a MAGI vote, a council ranking) Text is prose decoded from the
// JSON as it arrives: Field names the field it belongs to ("reasoning",
// "summary", "evaluation"; fieldstream.Raw when the answer does not read as JSON
// and Text is its own text), a new field's first delta starts with a blank
// line, and Raw is the answer's text as sent (Text may then be empty).
type TextDelta struct {
	Turn  int    `json:"turn"`
	Agent string `json:"agent"`
	Text  string `json:"text"`
	Field string `json:"field,omitempty"`
	Raw   string `json:"raw,omitempty"`
}

// FieldCompleted is a structured answer's non-prose field (a vote, an
// answer, a confidence, a ranking) once its value has arrived whole, while
// the turn still streams. A ranking's labels are joined by ", ".
type FieldCompleted struct {
	Turn  int    `json:"turn"`
	Agent string `json:"agent"`
	Field string `json:"field"`
	Value string `json:"value"`
}

// Retrying is emitted before a provider request is tried again.
type Retrying struct {
	Turn    int           `json:"turn"`
	Agent   string        `json:"agent"`
	Attempt int           `json:"attempt"`
	Wait    time.Duration `json:"wait_ns"`
	Err     string        `json:"error"`
}

// UsageReported carries a finished call's token counts and cost.
type UsageReported struct {
	Turn  int             `json:"turn"`
	Agent string          `json:"agent"`
	Usage providers.Usage `json:"usage"`
	Cost  float64         `json:"cost_usd"`
}

// TurnFinished is emitted when an agent turn ends, whatever its status.
type TurnFinished struct {
	Entry transcript.Entry `json:"entry"`
}

// ToolActivity reports a tool call starting (Result empty, Done false) or finishing.
type ToolActivity struct {
	Turn  int                 `json:"turn"`
	Agent string              `json:"agent"`
	Call  transcript.ToolCall `json:"call"`
	Done  bool                `json:"done"`
}

// ErrorOccurred reports a failure that is not tied to one finished turn
// (or repeats a turn's failure for consumers that only watch errors).
type ErrorOccurred struct {
	Turn  int    `json:"turn,omitempty"`
	Agent string `json:"agent,omitempty"`
	Err   string `json:"error"`
	Kind  string `json:"kind,omitempty"` // providers.ErrorKind when known
}

// ExchangeFinished is emitted when a Submit (one user action) is over.
type ExchangeFinished struct {
	Mode  string          `json:"mode"`
	Usage providers.Usage `json:"usage"`
	Cost  float64         `json:"cost_usd"`
	Err   string          `json:"error,omitempty"`
}

// SpendUpdated is the session's spend and caps, after every call that was
// priced and whenever a cap changes: what the status line and the web
// page show live.
type SpendUpdated struct {
	SpentUSD float64 `json:"spent_usd"`         // this session's calls in this run (serve: since the session began)
	CapUSD   float64 `json:"cap_usd,omitempty"` // the session's cap, 0 when none
	// Unknown: a call had no price, so SpentUSD is a lower bound.
	Unknown bool `json:"unknown,omitempty"`
	// Estimated: a call's usage was Parley's own count (its stream was
	// cut or cancelled before the provider's figures came).
	Estimated bool `json:"estimated,omitempty"`
	// ExchangeUSD is what the running (or last) exchange spent, and
	// ExchangeCapUSD the mode's per-exchange cap (0: none).
	ExchangeUSD    float64 `json:"exchange_usd"`
	ExchangeCapUSD float64 `json:"exchange_cap_usd,omitempty"`
}

// CapReached is a call that was not started: its worst case could pass a
// cap, or its model has no price while a cap is set. The exchange ends
// with what arrived; Message says which cap and what was spent.
type CapReached struct {
	spend.CapError
	Message string `json:"message"`
}

// AgentAnswered is the code-reading agent's outcome: its answer (the
// complete summary) or why there is none, with the tool calls it made.
type AgentAnswered struct {
	Agent     string                `json:"agent"`
	Answer    string                `json:"answer"`
	Complete  bool                  `json:"complete"`
	Error     string                `json:"error,omitempty"`
	Steps     int                   `json:"steps"` // model replies
	ToolCalls []transcript.ToolCall `json:"tool_calls"`
	Usage     providers.Usage       `json:"usage"`
	Cost      float64               `json:"cost_usd"`
}

func (SessionStarted) EventType() string   { return "session_started" }
func (SessionUpdated) EventType() string   { return "session_updated" }
func (EntryAdded) EventType() string       { return "entry_added" }
func (TurnStarted) EventType() string      { return "turn_started" }
func (TextDelta) EventType() string        { return "text_delta" }
func (FieldCompleted) EventType() string   { return "field_completed" }
func (Retrying) EventType() string         { return "retrying" }
func (UsageReported) EventType() string    { return "usage" }
func (TurnFinished) EventType() string     { return "turn_finished" }
func (ToolActivity) EventType() string     { return "tool" }
func (ErrorOccurred) EventType() string    { return "error" }
func (ExchangeFinished) EventType() string { return "exchange_finished" }
func (SpendUpdated) EventType() string     { return "spend" }
func (CapReached) EventType() string       { return "cap_reached" }
func (AgentAnswered) EventType() string    { return "agent_answered" }

func (NamedAskStarted) EventType() string { return "named_ask" }

// MarshalEvent encodes ev as one JSON object with a "type" field first.
func MarshalEvent(ev Event) ([]byte, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	head, _ := json.Marshal(ev.EventType())
	out := make([]byte, 0, len(body)+len(head)+10)
	out = append(out, `{"type":`...)
	out = append(out, head...)
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// Sink receives events, one at a time, in emission order, from the
// subscriber's own goroutine (see Engine.Subscribe).
type Sink func(Event)
