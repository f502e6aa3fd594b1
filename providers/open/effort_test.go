package open_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
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

// xhigh and max reach the models whose ladder has them and no other.
func TestHighEffortLevelsPerModel(t *testing.T) {
	cases := []struct {
		vendor, model, effort string
		field                 func(map[string]any) any
		want                  string
	}{
		{"openai-responses", "gpt-6.2-sol", "max", func(b map[string]any) any { return b["reasoning"] }, `{"effort":"max"}`},
		{"openai-responses", "gpt-5.3-codex", "xhigh", func(b map[string]any) any { return b["reasoning"] }, `null`},
		{"anthropic", "claude-haiku-5-5", "xhigh", func(b map[string]any) any { return b["output_config"] }, `{"effort":"xhigh"}`},
		{"anthropic", "claude-sonnet-4-6", "max", func(b map[string]any) any { return b["output_config"] }, `{"effort":"max"}`},
		{"anthropic", "claude-sonnet-4-6", "xhigh", func(b map[string]any) any { return b["output_config"] }, `null`},
		{"gemini", "gemini-4-argon", "max", func(b map[string]any) any { return genConfig(b)["thinkingConfig"] }, `null`},
	}
	for _, c := range cases {
		t.Run(c.vendor+"/"+c.model+"/"+c.effort, func(t *testing.T) {
			_, body := capture(t, vendorNamed(c.vendor), providers.Request{
				Model: c.model, Messages: history(), MaxTokens: 1000, Effort: c.effort, Info: providers.Family(c.model),
			})
			if got, _ := json.Marshal(c.field(body)); string(got) != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// A tool-using agent on gpt-6 goes to the Responses API even where the
// entry says chat, with its effort; a plain reply stays on Chat
// Completions; an OpenAI-compatible server keeps Chat Completions and is
// sent no effort with tools (it would refuse the pair).
func TestToolUsingAgentsRoutedToResponses(t *testing.T) {
	req := func(tools bool) providers.Request {
		return providers.Request{Model: "gpt-6.1-sol", Messages: history(), MaxTokens: 100, Effort: "high",
			Info: providers.Family("gpt-6.1-sol"), Meta: providers.Meta{Tools: tools}}
	}
	chat := vendorNamed("openai") // api: chat
	r, body := capture(t, chat, req(true))
	if !strings.HasSuffix(r.Path, "/responses") || !reflect.DeepEqual(body["reasoning"], map[string]any{"effort": "high"}) {
		t.Errorf("tools: path %s, reasoning %v", r.Path, body["reasoning"])
	}
	if r, body := capture(t, chat, req(false)); !strings.HasSuffix(r.Path, "/chat/completions") || body["reasoning_effort"] != "high" {
		t.Errorf("no tools: path %s, reasoning_effort %v", r.Path, body["reasoning_effort"])
	}
	compat := vendor{"compatible", "openai-compatible", "gpt-6.1-sol", providertest.OpenAI, "chat"}
	if r, body := capture(t, compat, req(true)); !strings.HasSuffix(r.Path, "/chat/completions") || body["reasoning_effort"] != nil {
		t.Errorf("compatible: path %s, reasoning_effort %v", r.Path, body["reasoning_effort"])
	}
}
