package providers

import (
	"strings"
	"testing"
)

// Real ids of every shape pass; anything that could drive a terminal or
// hide in one is refused, and the error never carries it raw.
func TestCheckID(t *testing.T) {
	for _, id := range []string{"gpt-6.1-sol", "claude-sonnet-4@20250514", "meta-llama/llama-3.1-8b-instruct:free",
		"anthropic.claude-3-5-sonnet-20241022-v2:0", "qwen3.5:27b", "gemma4_e4b", strings.Repeat("a", MaxIDLength)} {
		if err := CheckID(id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	for _, id := range []string{"", "x\x1b]52;c;cHduZWQ=\a", "gpt\u202e5", "gpt\u200b5", "a b", "a\tb", "gpt‐5", "é",
		"x\u009b2J", "a\x00", strings.Repeat("a", MaxIDLength+1)} {
		err := CheckID(id)
		if err == nil {
			t.Errorf("%q accepted", id)
			continue
		}
		if strings.ContainsAny(err.Error(), "\x1b\a\u202e\u200b\u009b\x00\t") {
			t.Errorf("the error carries the raw id: %q", err)
		}
	}
}
