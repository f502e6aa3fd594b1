package open_test

import (
	"encoding/json"
	"testing"

	"github.com/parleyhq/parley/providers"
)

// Each vendor gets the agent's effort in its own shape, only where the
// model takes that level; Gemini never gets thinkingBudget beside it.
func TestEffortInEachVendorsShape(t *testing.T) {
	cases := []struct {
		vendor, model, effort string
		field                 func(map[string]any) any
		want                  string // JSON of the field; "null": not sent
	}{
		{"openai-responses", "gpt-6.1-sol", "high", func(b map[string]any) any { return b["reasoning"] }, `{"effort":"high"}`},
		{"openai", "gpt-5", "low", func(b map[string]any) any { return b["reasoning_effort"] }, `"low"`},
		{"openai", "gpt-4o", "low", func(b map[string]any) any { return b["reasoning_effort"] }, `null`},
		{"anthropic", "claude-sonnet-5-5", "low", func(b map[string]any) any { return b["output_config"] }, `{"effort":"low"}`},
		{"anthropic", "claude-haiku-4-5", "low", func(b map[string]any) any { return b["output_config"] }, `null`},
		{"gemini", "gemini-3.8-flash", "medium", func(b map[string]any) any { return genConfig(b)["thinkingConfig"] }, `{"thinkingLevel":"MEDIUM"}`},
		{"gemini", "gemini-3.1-pro-preview", "medium", func(b map[string]any) any { return genConfig(b)["thinkingConfig"] }, `null`},
		{"gemini", "gemini-3.1-pro-preview", "high", func(b map[string]any) any { return genConfig(b)["thinkingConfig"] }, `{"thinkingLevel":"HIGH"}`},
		{"gemini", "gemini-2.5-flash", "low", func(b map[string]any) any { return genConfig(b)["thinkingConfig"] }, `null`},
	}
	for _, c := range cases {
		t.Run(c.vendor+"/"+c.model+"/"+c.effort, func(t *testing.T) {
			_, body := capture(t, vendorNamed(c.vendor), providers.Request{
				Model: c.model, Messages: history(), MaxTokens: 1000, Effort: c.effort, Info: providers.Family(c.model),
			})
			got, _ := json.Marshal(c.field(body))
			if string(got) != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func genConfig(body map[string]any) map[string]any {
	m, _ := body["generationConfig"].(map[string]any)
	return m
}
