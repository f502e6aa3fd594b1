package adapt

import (
	"strconv"

	"github.com/parleyhq/parley/providers"
)

// Bounds on what a server may make Parley hold as tool calls: past them a
// call's arguments are cut (the engine then answers the malformed JSON as
// that tool's error) and further calls are dropped.
const (
	MaxToolCalls     = 64
	MaxToolArguments = 1 << 20 // bytes of one call's arguments
)

// ToolCalls assembles streamed tool calls, each keyed by the vendor's own
// index (OpenAI's tool_calls[].index, the Responses output_index,
// Anthropic's content block index), in the order they began.
type ToolCalls struct {
	calls []providers.ToolCall
	keys  []int
}

// find returns the position of the call with key, -1 when none.
func (t *ToolCalls) find(key int) int {
	for i, k := range t.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Start begins the call with key, or fills in the id and name a
// continuing fragment carries (some servers repeat them); false when the
// call limit is reached.
func (t *ToolCalls) Start(key int, id, name string) bool {
	if i := t.find(key); i >= 0 {
		c := &t.calls[i]
		if c.ID == "" {
			c.ID = id
		}
		if c.Name == "" {
			c.Name = name
		}
		return true
	}
	if len(t.calls) >= MaxToolCalls {
		return false
	}
	t.keys = append(t.keys, key)
	t.calls = append(t.calls, providers.ToolCall{ID: id, Name: name})
	return true
}

// Append adds a fragment of the arguments of the call with key (started
// when it was not: a server may send the fragment first).
func (t *ToolCalls) Append(key int, fragment string) {
	if !t.Start(key, "", "") {
		return
	}
	c := &t.calls[t.find(key)]
	if room := MaxToolArguments - len(c.Arguments); len(fragment) > room {
		fragment = fragment[:max(room, 0)]
	}
	c.Arguments += fragment
}

// Set replaces the arguments of the call with key with their final text
// (the vendors' ...arguments.done events repeat the whole of it).
func (t *ToolCalls) Set(key int, arguments string) {
	if !t.Start(key, "", "") {
		return
	}
	if len(arguments) > MaxToolArguments {
		arguments = arguments[:MaxToolArguments]
	}
	t.calls[t.find(key)].Arguments = arguments
}

// SetSignature records vendor data the call must carry back.
func (t *ToolCalls) SetSignature(key int, sig string) {
	if i := t.find(key); i >= 0 {
		t.calls[i].Signature = sig
	}
}

// Len is the number of calls begun.
func (t *ToolCalls) Len() int { return len(t.calls) }

// Calls returns the calls, each with an id (call_N where the vendor gave
// none) and a name; nil when there are none.
func (t *ToolCalls) Calls() []providers.ToolCall {
	if len(t.calls) == 0 {
		return nil
	}
	out := make([]providers.ToolCall, 0, len(t.calls))
	for i, c := range t.calls {
		if c.ID == "" {
			c.ID = "call_" + strconv.Itoa(i+1)
		}
		out = append(out, c)
	}
	return out
}
