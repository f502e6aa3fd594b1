package open_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// The exact bodies each vendor receives for one system prompt and a
// three-message history.

func history() []providers.Message {
	return []providers.Message{
		{Role: providers.RoleUser, Content: "Is Go good for CLIs?"},
		{Role: providers.RoleAssistant, Content: "Yes: one static binary."},
		{Role: providers.RoleUser, Content: "[Gemini]: And for TUIs?"},
	}
}

func voteSchema() *providers.Schema {
	return &providers.Schema{
		Name:        "vote",
		Description: "a MAGI vote",
		JSON: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"vote":      map[string]any{"type": "string", "enum": []any{"approve", "reject", "abstain"}},
				"reasoning": map[string]any{"type": "string"},
				"summary":   map[string]any{"type": "string"},
			},
			"required": []any{"vote", "reasoning", "summary"},
		},
	}
}

// capture runs one request against a fake and returns the decoded body.
func capture(t *testing.T, v vendor, req providers.Request) (providertest.Request, map[string]any) {
	t.Helper()
	srv := v.fake(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Text: "ok"} })
	p, _ := openFake(t, v, srv, "good-key")
	if o := run(t, p, context.Background(), req); o.err != nil {
		t.Fatalf("err = %v", o.err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	return reqs[0], reqs[0].JSON
}

// jsonEqual compares got with the JSON text want.
func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON for %s: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s =\n  %s\nwant\n  %s", what, g, want)
	}
}

func TestOpenAIRequestBodyGPT5(t *testing.T) {
	temp := 0.3
	r, body := capture(t, vendorNamed("openai"), providers.Request{
		Model: "gpt-5", System: "You are MELCHIOR.", Messages: history(),
		MaxTokens: 500, Temperature: &temp, Schema: voteSchema(),
	})
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer good-key" {
		t.Errorf("path %q auth %q", r.Path, r.Header.Get("Authorization"))
	}
	jsonEqual(t, "body", body, `{
		"model": "gpt-5",
		"messages": [
			{"role": "system", "content": "You are MELCHIOR."},
			{"role": "user", "content": "Is Go good for CLIs?"},
			{"role": "assistant", "content": "Yes: one static binary."},
			{"role": "user", "content": "[Gemini]: And for TUIs?"}
		],
		"max_completion_tokens": 500,
		"stream": true,
		"stream_options": {"include_usage": true},
		"response_format": {
			"type": "json_schema",
			"json_schema": {
				"name": "vote",
				"description": "a MAGI vote",
				"strict": true,
				"schema": {
					"type": "object",
					"additionalProperties": false,
					"properties": {
						"vote": {"type": "string", "enum": ["approve", "reject", "abstain"]},
						"reasoning": {"type": "string"},
						"summary": {"type": "string"}
					},
					"required": ["vote", "reasoning", "summary"]
				}
			}
		}
	}`)
}

func TestOpenAIRequestBodyClassicModel(t *testing.T) {
	temp := 0.3
	_, body := capture(t, vendorNamed("openai"), providers.Request{
		Model: "gpt-4o", System: "Be brief.", Messages: history()[:1], MaxTokens: 200, Temperature: &temp,
	})
	if body["max_tokens"] != 200.0 || body["max_completion_tokens"] != nil {
		t.Errorf("max_tokens = %v, max_completion_tokens = %v", body["max_tokens"], body["max_completion_tokens"])
	}
	if got, _ := body["temperature"].(float64); got < 0.299 || got > 0.301 {
		t.Errorf("temperature = %v, want 0.3", body["temperature"])
	}
	zero := 0.0
	_, body = capture(t, vendorNamed("openai"), providers.Request{Model: "gpt-4o", Messages: history()[:1], Temperature: &zero})
	if got, ok := body["temperature"].(float64); !ok || got != 0 {
		t.Errorf("temperature 0 sent as %v, want exactly 0 (llama.cpp's sampler breaks on 1e-45)", body["temperature"])
	}
}

func TestOpenAISchemaWithOptionalPropertyIsNotStrict(t *testing.T) {
	s := voteSchema()
	s.JSON["required"] = []any{"vote"}
	_, body := capture(t, vendorNamed("openai"), providers.Request{Model: "gpt-5", Messages: history(), Schema: s})
	js := body["response_format"].(map[string]any)["json_schema"].(map[string]any)
	if js["strict"] != false {
		t.Errorf("strict = %v, want false for optional properties", js["strict"])
	}
}

func TestAnthropicRequestBody(t *testing.T) {
	temp := 0.3
	r, body := capture(t, vendorNamed("anthropic"), providers.Request{
		Model: "claude-sonnet-4-6", System: "You are BALTHASAR.", Messages: history(),
		MaxTokens: 500, Temperature: &temp, Schema: voteSchema(),
	})
	if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "good-key" || r.Header.Get("Anthropic-Version") == "" {
		t.Errorf("path %q key %q version %q", r.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
	}
	jsonEqual(t, "body", body, `{
		"model": "claude-sonnet-4-6",
		"max_tokens": 500,
		"temperature": 0.3,
		"stream": true,
		"system": [{"type": "text", "text": "You are BALTHASAR."}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "Is Go good for CLIs?"}]},
			{"role": "assistant", "content": [{"type": "text", "text": "Yes: one static binary."}]},
			{"role": "user", "content": [{"type": "text", "text": "[Gemini]: And for TUIs?"}]}
		],
		"output_config": {"format": {"type": "json_schema", "schema": {
			"type": "object",
			"additionalProperties": false,
			"properties": {
				"vote": {"type": "string", "enum": ["approve", "reject", "abstain"]},
				"reasoning": {"type": "string"},
				"summary": {"type": "string"}
			},
			"required": ["vote", "reasoning", "summary"]
		}}}
	}`)
}

func TestAnthropicDefaultsAndAlternation(t *testing.T) {
	_, body := capture(t, vendorNamed("anthropic"), providers.Request{
		Model: "claude-sonnet-4-6",
		Messages: []providers.Message{
			{Role: providers.RoleAssistant, Content: "I opened."},
			{Role: providers.RoleUser, Content: "[Gemini]: one"},
			{Role: providers.RoleUser, Content: "[ChatGPT]: two"},
			{Role: providers.RoleUser, Content: "  "},
		},
	})
	// No max_tokens from the agent: the model's catalogue maximum (64,000
	// for Sonnet 4.6), capped at 32,000, not a fixed 4,096.
	if body["max_tokens"] != 32000.0 {
		t.Errorf("max_tokens = %v, want 32000", body["max_tokens"])
	}
	if _, ok := body["system"]; ok {
		t.Error("empty system prompt was sent")
	}
	msgs := body["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "user,assistant,user" {
		t.Fatalf("roles = %v, want user,assistant,user", roles)
	}
	last := msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if last != "[Gemini]: one\n\n[ChatGPT]: two" {
		t.Errorf("merged text = %q", last)
	}
}

func TestAnthropicForcedToolForOlderModels(t *testing.T) {
	srv := providertest.Anthropic(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{`{"vote":`, `"approve","reasoning":"ok","summary":"s"}`}}
	})
	p, _ := openFake(t, vendorNamed("anthropic"), srv, "good-key")
	o := run(t, p, context.Background(), providers.Request{Model: "claude-3-5-haiku-latest", Messages: history(), Schema: voteSchema()})
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.text() != `{"vote":"approve","reasoning":"ok","summary":"s"}` {
		t.Errorf("text = %q", o.text())
	}
	if o.res.FinishReason != "tool_use" {
		t.Errorf("finish = %q", o.res.FinishReason)
	}
	body := srv.Requests()[0].JSON
	jsonEqual(t, "tool_choice", body["tool_choice"], `{"type": "tool", "name": "vote"}`)
	tool := body["tools"].([]any)[0].(map[string]any)
	if tool["name"] != "vote" || tool["description"] != "a MAGI vote" {
		t.Errorf("tool = %v", tool)
	}
	jsonEqual(t, "input_schema.required", tool["input_schema"].(map[string]any)["required"], `["vote","reasoning","summary"]`)
	if _, ok := body["output_config"]; ok {
		t.Error("output_config sent alongside the forced tool")
	}
}

func TestGeminiRequestBody(t *testing.T) {
	temp := 0.3
	r, body := capture(t, vendorNamed("gemini"), providers.Request{
		Model: "gemini-3-flash-preview", System: "You are CASPER.", Messages: history(),
		MaxTokens: 500, Temperature: &temp, Schema: voteSchema(),
	})
	if r.Path != "/v1beta/models/gemini-3-flash-preview:streamGenerateContent" || r.Query.Get("alt") != "sse" {
		t.Errorf("path %q query %v", r.Path, r.Query)
	}
	if r.Header.Get("X-Goog-Api-Key") != "good-key" {
		t.Errorf("key header = %q", r.Header.Get("X-Goog-Api-Key"))
	}
	// Gemini 3 deprecates temperature: the configured one is not sent.
	gen := body["generationConfig"].(map[string]any)
	if _, sent := gen["temperature"]; sent {
		t.Errorf("temperature sent to Gemini 3: %v", gen["temperature"])
	}
	// Gemini 2.5 still takes it (as a float32).
	_, old := capture(t, vendorNamed("gemini"), providers.Request{Model: "gemini-2.5-flash", Messages: history(), Temperature: &temp})
	if got, _ := old["generationConfig"].(map[string]any)["temperature"].(float64); got < 0.299 || got > 0.301 {
		t.Errorf("gemini-2.5 temperature = %v", got)
	}
	jsonEqual(t, "body", body, `{
		"contents": [
			{"role": "user", "parts": [{"text": "Is Go good for CLIs?"}]},
			{"role": "model", "parts": [{"text": "Yes: one static binary."}]},
			{"role": "user", "parts": [{"text": "[Gemini]: And for TUIs?"}]}
		],
		"systemInstruction": {"role": "user", "parts": [{"text": "You are CASPER."}]},
		"generationConfig": {
			"maxOutputTokens": 500,
			"responseMimeType": "application/json",
			"responseSchema": {
				"type": "OBJECT",
				"properties": {
					"vote": {"type": "STRING", "enum": ["approve", "reject", "abstain"]},
					"reasoning": {"type": "STRING"},
					"summary": {"type": "STRING"}
				},
				"required": ["vote", "reasoning", "summary"],
				"propertyOrdering": ["vote", "reasoning", "summary"]
			}
		}
	}`)
}

func TestGeminiUnsupportedSchemaFallsBackToJSONSchema(t *testing.T) {
	s := voteSchema()
	s.JSON["$defs"] = map[string]any{"x": map[string]any{"type": "string"}}
	_, body := capture(t, vendorNamed("gemini"), providers.Request{Model: "gemini-3-flash-preview", Messages: history(), Schema: s})
	gen := body["generationConfig"].(map[string]any)
	if gen["responseJsonSchema"] == nil || gen["responseSchema"] != nil {
		t.Errorf("generationConfig = %v, want responseJsonSchema only", gen)
	}
}

// CachePrefix puts a cache breakpoint at the end of the stable prefix (the
// message before the last) besides the one after the whole history; a
// prefix that ends inside a merged message gets none (a breakpoint there
// would cover words the next request does not repeat).
func TestAnthropicCacheBreakpointOnStablePrefix(t *testing.T) {
	cached := func(body map[string]any) []int {
		var out []int
		for i, m := range body["messages"].([]any) {
			block := m.(map[string]any)["content"].([]any)[0].(map[string]any)
			if _, ok := block["cache_control"]; ok {
				out = append(out, i)
			}
		}
		return out
	}
	// A persona long enough that every prefix passes Sonnet's 1,024-token
	// minimum (5,600 bytes: 1,400 tokens at four bytes a token).
	long := strings.Repeat("persona ", 700)
	_, body := capture(t, vendorNamed("anthropic"), providers.Request{Model: "claude-sonnet-4-6", System: long, Messages: history(), CachePrefix: 2})
	if got := fmt.Sprint(cached(body)); got != "[1 2]" {
		t.Fatalf("breakpoints at %s, want [1 2]", got)
	}
	if sys := body["system"].([]any)[0].(map[string]any); sys["cache_control"] == nil {
		t.Error("a system prompt past the minimum should carry a breakpoint")
	}
	// Below the minimum nothing is cached: no breakpoint anywhere.
	_, body = capture(t, vendorNamed("anthropic"), providers.Request{Model: "claude-sonnet-4-6", System: "short", Messages: history(), CachePrefix: 2})
	if got := fmt.Sprint(cached(body)); got != "[]" || body["system"].([]any)[0].(map[string]any)["cache_control"] != nil {
		t.Fatalf("a prefix under the minimum got breakpoints at %s", got)
	}
	// Haiku 4.5 caches from 4,096 tokens: the same long persona is too short.
	_, body = capture(t, vendorNamed("anthropic"), providers.Request{Model: "claude-haiku-4-5", System: long, Messages: history(), CachePrefix: 2, Info: providers.Family("claude-haiku-4-5")})
	if got := fmt.Sprint(cached(body)); got != "[]" {
		t.Fatalf("haiku: breakpoints at %s under its 4,096-token minimum", got)
	}
	_, body = capture(t, vendorNamed("anthropic"), providers.Request{Model: "claude-sonnet-4-6", System: long, CachePrefix: 2, Messages: []providers.Message{
		{Role: providers.RoleUser, Content: "[Host]: q"},
		{Role: providers.RoleUser, Content: "[Gemini]: a"},
		{Role: providers.RoleUser, Content: "[ChatGPT]: b"},
	}})
	if got := fmt.Sprint(cached(body)); got != "[0]" {
		t.Fatalf("merged prefix: breakpoints at %s, want only the last [0]", got)
	}
}
