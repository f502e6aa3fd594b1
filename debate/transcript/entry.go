package transcript

import (
	"time"

	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/providers"
)

// Kind says what an entry of the history holds.
type Kind string

const (
	KindUser       Kind = "user"        // a message from the host that asked agents
	KindNote       Kind = "note"        // a plain line: history only, no call
	KindReply      Kind = "reply"       // an agent's answer
	KindModerator  Kind = "moderator"   // the talk moderator's turn
	KindVote       Kind = "vote"        // a MAGI vote (Text holds the JSON answer)
	KindVerdict    Kind = "verdict"     // a MAGI verdict (Vote holds it)
	KindToolCall   Kind = "tool_call"   // an agent's tool request
	KindToolResult Kind = "tool_result" // what the tool returned
	KindError      Kind = "error"       // a failure worth keeping in the record
	// KindSummary condenses a block of older turns for the prompts (see
	// debate/compact.go); the turns it covers stay in the history and the record.
	KindSummary Kind = "summary"
	// KindOutcome is a mode's outcome in one sentence (Text), written once
	// by the mode (debate's Engine.AddOutcome): every door shows it as is; no prompt
	// carries it.
	KindOutcome Kind = "outcome"
)

// Status of an entry. Agent turns start as streaming and end in one of the
// others; everything else is complete from the start.
type Status string

const (
	StatusStreaming Status = "streaming"
	StatusComplete  Status = "complete"
	StatusPartial   Status = "partial"   // the stream was cut; Text is what arrived
	StatusCancelled Status = "cancelled" // the user cancelled; Text is what arrived
	StatusError     Status = "error"     // nothing usable arrived
)

// Finished reports whether the status is final.
func (s Status) Finished() bool { return s != StatusStreaming && s != "" }

// Speaker names that are not agents.
const (
	SpeakerUser   = "user"
	SpeakerSystem = "system"
)

// ToolCall is one tool use by an agent, in the seed's export shape.
type ToolCall struct {
	Tool       string            `json:"tool"`
	Parameters map[string]string `json:"parameters"`
	Result     string            `json:"result"`
	Error      string            `json:"error,omitempty"`
}

// Entry is one item of the shared history.
type Entry struct {
	Turn        int             `json:"turn"` // 1-based position in the session
	Kind        Kind            `json:"kind"`
	Speaker     string          `json:"speaker"` // agent name, "user" or "system"
	Display     string          `json:"display"` // name as shown, e.g. "Gemini"
	Provider    string          `json:"provider,omitempty"`
	Model       string          `json:"model,omitempty"`
	Mode        string          `json:"mode"`
	Round       int             `json:"round,omitempty"`
	Prompt      string          `json:"prompt,omitempty"` // the instruction this turn answered
	Text        string          `json:"text"`
	Vote        string          `json:"vote,omitempty"` // vote word, or the verdict for KindVerdict
	IsModerator bool            `json:"is_moderator,omitempty"`
	Status      Status          `json:"status"`
	Error       string          `json:"error,omitempty"`
	Usage       providers.Usage `json:"usage"`
	Cost        float64         `json:"cost_usd"`
	Started     time.Time       `json:"started"`
	Finished    time.Time       `json:"finished,omitzero"` // none while the turn streams
	ToolCalls   []ToolCall      `json:"tool_calls,omitempty"`
	// Covers is, for a summary, the last turn it condenses: it covers the
	// turns after the previous summary's Covers up to this one.
	Covers int `json:"covers,omitempty"`
	// Origin is the door the turn was saved through ("console", "ask",
	// "serve", "mcp", …), so a session shared by several processes shows
	// where each turn came from. Empty for turns saved before doors were
	// recorded, and for sessions that are not saved.
	Origin string `json:"origin,omitempty"`
	// Warning says the call cost more than the worst case it was admitted
	// by (the provider reported, or Parley counted, more than it allowed
	// for), naming the model and the figures.
	Warning string `json:"warning,omitempty"`
	// Evidence are the records a native tool call produced (a tool_call
	// entry's one record; see debate/nativetools.go).
	Evidence []evidence.Record `json:"evidence,omitempty"`
}

// Latency is how long the entry took to produce.
func (e Entry) Latency() time.Duration {
	if e.Finished.IsZero() || e.Started.IsZero() {
		return 0
	}
	return e.Finished.Sub(e.Started)
}

// IsStatusNote reports whether the entry is Parley's own note to the user
// (whom @all skipped, and why; a mode's outcome): shown and saved, never
// part of a prompt, a summary or a digest, since the models did not say it
// and the host did not write it.
func (e Entry) IsStatusNote() bool {
	return e.Kind == KindNote && e.Speaker == SpeakerSystem || e.Kind == KindOutcome
}

// IsAgentTurn reports whether an agent produced the entry through a model call.
func (e Entry) IsAgentTurn() bool {
	switch e.Kind {
	case KindReply, KindModerator, KindVote:
		return true
	}
	return false
}
