package mcp

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzReadCLIArgs: whatever a client sends, reading its strings never
// panics, leaves JSON that decodes, and reads no number that is not
// finite and bounded.
func FuzzReadCLIArgs(f *testing.F) {
	for _, seed := range []string{`{"max_cost":"0.5"}`, `{"members":"a,b"}`, `{"members":"[\"a\"]"}`, `{"limit":"3"}`,
		`{"max_cost":"1e999"}`, `{"max_cost":null}`, `[]`, `null`, `{"members":"[1]"}`, `{"question":null}`} {
		f.Add(seed)
	}
	sc := inputSchema[CouncilInput](nil)
	list := inputSchema[SessionsListInput](nil)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, out := range [][]byte{readCLIArgs(sc, json.RawMessage(raw)), readCLIArgs(list, json.RawMessage(raw))} {
			if string(out) == raw {
				continue
			}
			var args map[string]any
			if err := json.Unmarshal(out, &args); err != nil {
				t.Fatalf("%q read as %q: %v", raw, out, err)
			}
			if v, ok := args["max_cost"].(float64); ok && (math.IsInf(v, 0) || math.IsNaN(v) || v < 0) {
				t.Fatalf("%q read max_cost %v", raw, v)
			}
		}
	})
}
