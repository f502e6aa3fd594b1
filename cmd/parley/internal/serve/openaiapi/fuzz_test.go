package openaiapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzReadMessages: any messages array a client sends is either refused
// with a 400 naming the field, or read into a question with text.
func FuzzReadMessages(f *testing.F) {
	for _, seed := range []string{
		`[{"role":"user","content":"hi"}]`,
		`[{"role":"system","content":"be brief"},{"role":"user","content":"a"},{"role":"assistant","content":null},{"role":"user","content":[{"type":"text","text":"q"}]}]`,
		`[{"role":"developer","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]},{"role":"user","content":"q"}]`,
		`[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]`,
		`[{"role":"tool","content":"r","tool_call_id":"1"},{"role":"user","content":"q"}]`,
		`[{"role":"assistant","content":"a"}]`,
		`[{"role":"user","content":5}]`,
		`[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []message
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		c, err := readMessages(msgs)
		if err != nil {
			e := asError(err)
			if e.Status != 400 || e.Param == nil || e.Message == "" {
				t.Fatalf("refusal %+v", e)
			}
			return
		}
		if strings.TrimSpace(c.question) == "" || len(c.turns) >= len(msgs) {
			t.Fatalf("read %d messages as %+v", len(msgs), c)
		}
		for _, en := range c.entries("council", "Council") {
			if strings.TrimSpace(en.Text) == "" {
				t.Fatalf("an empty history entry: %+v", en)
			}
		}
	})
}
