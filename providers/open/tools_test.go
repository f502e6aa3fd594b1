package open_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// Native tool calls through the real SDKs against the wire-level fakes:
// the tools each vendor is sent, calls streamed in pieces or whole, and a
// conversation carrying calls and their results back.

func readFileTool() providers.ToolSpec {
	return providers.ToolSpec{
		Name:        "read_file",
		Description: "Read a file of the workspace",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"path": map[string]any{"type": "string"}},
			"required":   []any{"path"},
		},
	}
}

// toolCalls are two parallel calls, one with arguments long enough to
// stream in several pieces.
func toolCalls() []providers.ToolCall {
	return []providers.ToolCall{
		{ID: "call_a1", Name: "read_file", Arguments: `{"path":"docs/a very long path/with spaces/README.md"}`},
		{ID: "call_b2", Name: "list_file", Arguments: `{}`},
	}
}

// toolConversation is a turn that called tools and got their results.
func toolConversation() []providers.Message {
	return []providers.Message{
		{Role: providers.RoleUser, Content: "What does the README say?"},
		{Role: providers.RoleAssistant, Content: "Let me look.", ToolCalls: toolCalls()},
		{Role: providers.RoleTool, ToolResults: []providers.ToolResult{
			{CallID: "call_a1", Name: "read_file", Content: "# Parley\nA debate console."},
			{CallID: "call_b2", Name: "list_file", Content: "error: no such folder", IsError: true},
		}},
	}
}

// toolVendors are the adapters with native tool calls.
var toolVendors = []string{"openai", "openai-responses", "anthropic", "gemini"}

func TestToolCallsStreamedAndWhole(t *testing.T) {
	for _, name := range toolVendors {
		v := vendorNamed(name)
		for _, chunk := range []int{0, 7} { // whole, and in 7-byte pieces
			srv := v.fake(t, func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "Reading.", ToolCalls: toolCalls(), ArgChunk: chunk,
					Usage: providers.Usage{InputTokens: 40, OutputTokens: 12}}
			})
			p, _ := openFake(t, v, srv, "good-key")
			req := simpleRequest(v.model)
			req.Tools = []providers.ToolSpec{readFileTool()}
			o := run(t, p, context.Background(), req)
			if o.err != nil {
				t.Fatalf("%s/%d: err = %v", name, chunk, o.err)
			}
			if o.text() != "Reading." {
				t.Errorf("%s/%d: text = %q", name, chunk, o.text())
			}
			got := o.res.ToolCalls
			for i := range got {
				got[i].Signature = "" // Gemini's, checked on its own
			}
			if !reflect.DeepEqual(got, toolCalls()) {
				t.Errorf("%s/%d: calls = %+v\nwant %+v", name, chunk, got, toolCalls())
			}
			if err := providers.FinishError(name, o.res, "", 0); err != nil {
				t.Errorf("%s/%d: a turn of tool calls is an error: %v", name, chunk, err)
			}
			if o.res.Usage.InputTokens != 40 {
				t.Errorf("%s/%d: usage = %+v", name, chunk, o.res.Usage)
			}
		}
	}
}

// A stream cut in the middle of a call's arguments is an error, never a
// turn of tool calls that looks whole.
func TestToolCallCutIsAnError(t *testing.T) {
	for _, name := range toolVendors {
		v := vendorNamed(name)
		srv := v.fake(t, func(providertest.Request) providertest.Reply {
			return providertest.Reply{ToolCalls: toolCalls(), ArgChunk: 5, CutAfter: 1}
		})
		p, _ := openFake(t, v, srv, "good-key")
		req := simpleRequest(v.model)
		req.Tools = []providers.ToolSpec{readFileTool()}
		o := run(t, p, context.Background(), req)
		wantKind(t, o.err, providers.KindNetwork)
	}
}

func TestToolConversationReachesTheServer(t *testing.T) {
	for _, name := range toolVendors {
		v := vendorNamed(name)
		req := providers.Request{Model: v.model, Messages: toolConversation(), Tools: []providers.ToolSpec{readFileTool()}}
		got, body := capture(t, v, req)
		if len(got.Messages) != 3 {
			t.Fatalf("%s: messages = %+v", name, got.Messages)
		}
		if calls := got.Messages[1].ToolCalls; !reflect.DeepEqual(stripSig(calls), toolCalls()) {
			t.Errorf("%s: assistant calls = %+v", name, calls)
		}
		res := got.Messages[2]
		if res.Role != providers.RoleTool || len(res.ToolResults) != 2 ||
			res.ToolResults[0].CallID != "call_a1" || res.ToolResults[0].Content != "# Parley\nA debate console." ||
			res.ToolResults[1].CallID != "call_b2" {
			t.Errorf("%s: results = %+v", name, res)
		}
		wireTools[name](t, body)
	}
}

func stripSig(calls []providers.ToolCall) []providers.ToolCall {
	out := append([]providers.ToolCall(nil), calls...)
	for i := range out {
		out[i].Signature = ""
	}
	return out
}

// wireTools checks the tools and the tool messages of a body against each
// vendor's API reference.
var wireTools = map[string]func(t *testing.T, body map[string]any){
	// platform.openai.com/docs/api-reference/chat/create: tools[] of
	// {type: function, function: {name, description, parameters}}; an
	// assistant message's tool_calls[] {id, type, function: {name,
	// arguments}}; a tool message {role: tool, tool_call_id, content}.
	"openai": func(t *testing.T, body map[string]any) {
		jsonEqual(t, "tools", body["tools"], `[{"type":"function","function":{"name":"read_file","description":"Read a file of the workspace",
			"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]`)
		msgs := body["messages"].([]any)
		jsonEqual(t, "assistant", msgs[1], `{"role":"assistant","content":"Let me look.","tool_calls":[
			{"id":"call_a1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"docs/a very long path/with spaces/README.md\"}"}},
			{"id":"call_b2","type":"function","function":{"name":"list_file","arguments":"{}"}}]}`)
		jsonEqual(t, "tool 1", msgs[2], `{"role":"tool","tool_call_id":"call_a1","content":"# Parley\nA debate console."}`)
		jsonEqual(t, "tool 2", msgs[3], `{"role":"tool","tool_call_id":"call_b2","content":"error: no such folder"}`)
	},
	// platform.openai.com/docs/api-reference/responses/create: a function
	// tool is {type: function, name, description, parameters} inline; the
	// input's function_call items {type, call_id, name, arguments} follow
	// the assistant's text, and function_call_output {type, call_id,
	// output} answers each.
	"openai-responses": func(t *testing.T, body map[string]any) {
		jsonEqual(t, "tools", body["tools"], `[{"type":"function","name":"read_file","description":"Read a file of the workspace",
			"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`)
		jsonEqual(t, "input", body["input"], `[{"role":"user","content":"What does the README say?"},
			{"role":"assistant","content":"Let me look."},
			{"type":"function_call","call_id":"call_a1","name":"read_file","arguments":"{\"path\":\"docs/a very long path/with spaces/README.md\"}"},
			{"type":"function_call","call_id":"call_b2","name":"list_file","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_a1","output":"# Parley\nA debate console."},
			{"type":"function_call_output","call_id":"call_b2","output":"error: no such folder"}]`)
		// A reasoning model's items come back encrypted, to be replayed.
		jsonEqual(t, "include", body["include"], `["reasoning.encrypted_content"]`)
	},
	// docs.anthropic.com/en/api/messages: tools[] {name, description,
	// input_schema}; the assistant's tool_use blocks {id, name, input}
	// after its text; the next user turn opens with tool_result blocks
	// {tool_use_id, content, is_error}.
	"anthropic": func(t *testing.T, body map[string]any) {
		jsonEqual(t, "tools", body["tools"], `[{"name":"read_file","description":"Read a file of the workspace",
			"input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`)
		msgs := body["messages"].([]any)
		jsonEqual(t, "assistant", msgs[1], `{"role":"assistant","content":[{"type":"text","text":"Let me look."},
			{"type":"tool_use","id":"call_a1","name":"read_file","input":{"path":"docs/a very long path/with spaces/README.md"}},
			{"type":"tool_use","id":"call_b2","name":"list_file","input":{}}]}`)
		jsonEqual(t, "results", msgs[2], `{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"call_a1","content":[{"type":"text","text":"# Parley\nA debate console."}]},
			{"type":"tool_result","tool_use_id":"call_b2","is_error":true,"content":[{"type":"text","text":"error: no such folder"}]}]}`)
	},
	// ai.google.dev/api/caching#Tool and #FunctionCall/#FunctionResponse:
	// functionDeclarations {name, description, parametersJsonSchema}; the
	// model's functionCall parts {id, name, args} after its text; the
	// user's functionResponse parts {id, name, response} ("output", or
	// "error" for a failed call).
	"gemini": func(t *testing.T, body map[string]any) {
		jsonEqual(t, "tools", body["tools"], `[{"functionDeclarations":[{"name":"read_file","description":"Read a file of the workspace",
			"parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}]`)
		contents := body["contents"].([]any)
		jsonEqual(t, "model", contents[1], `{"role":"model","parts":[{"text":"Let me look."},
			{"functionCall":{"id":"call_a1","name":"read_file","args":{"path":"docs/a very long path/with spaces/README.md"}}},
			{"functionCall":{"id":"call_b2","name":"list_file"}}]}`) // genai leaves empty args out (omitempty)
		jsonEqual(t, "results", contents[2], `{"role":"user","parts":[
			{"functionResponse":{"id":"call_a1","name":"read_file","response":{"output":"# Parley\nA debate console."}}},
			{"functionResponse":{"id":"call_b2","name":"list_file","response":{"error":"error: no such folder"}}}]}`)
	},
}

// An OpenAI-compatible server (Ollama, llama.cpp, vLLM) gets tools on Chat
// Completions and no server-side search; calls it sends whole and without
// an index (as some do) are two calls, not one.
func TestCompatibleServerTools(t *testing.T) {
	clearVendorEnv(t)
	raw := "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[" +
		"{\"id\":\"call_x\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a.md\\\"}\"}}," +
		"{\"id\":\"call_y\",\"type\":\"function\",\"function\":{\"name\":\"list_file\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: [DONE]\n\n"
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Raw: []byte(raw)} })
	p, err := open.Open("ollama", providers.Spec{Type: "openai-compatible", BaseURL: srv.URL}, envMap())
	if err != nil {
		t.Fatal(err)
	}
	req := providers.Request{Model: "qwen3", Messages: history(), Tools: []providers.ToolSpec{readFileTool()},
		ServerTools: []providers.ServerTool{{Kind: providers.ServerToolWebSearch}}}
	o := run(t, p, context.Background(), req)
	if o.err != nil {
		t.Fatal(o.err)
	}
	want := []providers.ToolCall{{ID: "call_x", Name: "read_file", Arguments: `{"path":"a.md"}`}, {ID: "call_y", Name: "list_file", Arguments: `{}`}}
	if !reflect.DeepEqual(o.res.ToolCalls, want) {
		t.Errorf("calls = %+v", o.res.ToolCalls)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" {
		t.Errorf("path = %s", got.Path)
	}
	// The function only: a compatible server has no hosted search.
	jsonEqual(t, "tools", got.JSON["tools"], `[{"type":"function","function":{"name":"read_file","description":"Read a file of the workspace",
		"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]`)
}
