// The alternate mode's step, as the core's events carry it to every door.

package dialogue

import (
	"bytes"
	"encoding/json"

	"github.com/parleyhq/parley/debate/transcript"
)

// AlternateTurn is the outcome of one start turn or step.
type AlternateTurn struct {
	Step        int    // 0 for the start turn
	Instruction string // the host's instruction, "" for a step without one
	// Outputs maps each agent of the pair to its answer; nil for the agent
	// that did not answer (or produced nothing).
	Outputs   map[string]*string
	Pair      [2]string          // agent names, first one first (JSON key order)
	Responder string             // the agent that answered last
	Next      string             // the agent that answers the next step
	Entries   []transcript.Entry // the agent turns, in order
	// Tokens is what the turn used (input + output of every call);
	// BothTokens what it would have used had both agents answered.
	Tokens     int
	BothTokens int
	Err        error // the first failed call's error, if any
}

// MarshalJSON writes the seed's shape with keys in a fixed order:
// user_instruction, <first>_output, <second>_output, responder, next_responder.
func (t AlternateTurn) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	field := func(key string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		// Model text reads better without HTML escaping (<, >, & stay as is).
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(key); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1)
		return nil
	}
	b.WriteByte('{')
	if err := field("user_instruction", t.Instruction); err != nil {
		return nil, err
	}
	for _, name := range t.Pair {
		if err := field(name+"_output", t.Outputs[name]); err != nil {
			return nil, err
		}
	}
	if err := field("responder", t.Responder); err != nil {
		return nil, err
	}
	if err := field("next_responder", t.Next); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// JSONLine is the headless --json line of a turn:
// {"status":"ok","turn":{...}}, or status "error" with an "error" field.
func (t AlternateTurn) JSONLine() ([]byte, error) {
	turn, err := t.MarshalJSON()
	if err != nil {
		return nil, err
	}
	status := []byte(`"ok"`)
	var errField []byte
	if t.Err != nil {
		status = []byte(`"error"`)
		errField, _ = json.Marshal(t.Err.Error())
	}
	out := []byte(`{"status":`)
	out = append(out, status...)
	if errField != nil {
		out = append(out, `,"error":`...)
		out = append(out, errField...)
	}
	out = append(out, `,"turn":`...)
	out = append(out, turn...)
	return append(out, '}'), nil
}

// AlternateTokens totals the turns: tokens used and what both-answer steps
// would have used.
type AlternateTokens struct {
	Used int `json:"used"`
	Both int `json:"both"`
}

// Ratio is used over both-answer tokens (1 when nothing ran).
func (t AlternateTokens) Ratio() float64 {
	if t.Both == 0 {
		return 1
	}
	return float64(t.Used) / float64(t.Both)
}
