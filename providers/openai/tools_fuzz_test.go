package openai

import (
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// FuzzChatToolDeltas feeds the Chat Completions tool-call assembler the
// chunks a server could send: whatever they hold, it stays within its
// bounds, and arguments split into pieces come back whole.
func FuzzChatToolDeltas(f *testing.F) {
	f.Add(`[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}}]`, `{"path":"a.md"}`, uint8(3))
	f.Add(`[{"function":{"arguments":"{}"}},{"id":"x","function":{"name":"n"}}]`, ``, uint8(1))
	f.Add(`[{"index":-7,"function":{"arguments":"\u0000"}},{"index":99999999}]`, `{"a":`, uint8(0))
	f.Fuzz(func(t *testing.T, first, args string, size uint8) {
		var st chatState
		var res providers.Result
		var deltas []openai.ToolCall
		if json.Unmarshal([]byte(first), &deltas) == nil {
			chunk := openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: deltas}}}}
			st.chunk(chunk, &res)
		}
		if len(res.ToolCalls) > adapt.MaxToolCalls {
			t.Fatalf("%d calls", len(res.ToolCalls))
		}
		for _, c := range res.ToolCalls {
			if c.ID == "" || len(c.Arguments) > adapt.MaxToolArguments {
				t.Fatalf("call %+v", c)
			}
		}
		// A fresh call streamed in pieces of size bytes assembles whole.
		var fresh chatState
		var out providers.Result
		idx := 3
		fresh.chunk(toolChunk(&idx, "call_z", "fetch_url", ""), &out)
		n := int(size%16) + 1
		for rest := args; rest != ""; {
			piece := rest[:min(n, len(rest))]
			rest = rest[len(piece):]
			fresh.chunk(toolChunk(&idx, "", "", piece), &out)
		}
		if len(out.ToolCalls) != 1 || out.ToolCalls[0].Arguments != args || out.ToolCalls[0].Name != "fetch_url" || out.ToolCalls[0].ID != "call_z" {
			t.Fatalf("calls = %+v, want arguments %q", out.ToolCalls, args)
		}
	})
}

func toolChunk(index *int, id, name, args string) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{
		ToolCalls: []openai.ToolCall{{Index: index, ID: id, Function: openai.FunctionCall{Name: name, Arguments: args}}},
	}}}}
}

// FuzzResponsesToolEvents feeds the Responses tool-call assembler events
// a server could send (one JSON event a line): it stays within its bounds
// and never panics, and arguments streamed in pieces come back whole.
func FuzzResponsesToolEvents(f *testing.F) {
	f.Add("{\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"n\"}}\n"+
		"{\"type\":\"response.function_call_arguments.delta\",\"output_index\":1,\"delta\":\"{}\"}", `{"q":"go"}`, uint8(2))
	f.Add("{\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"héllo\",\"annotations\":[{\"type\":\"url_citation\",\"url\":\"u\",\"start_index\":1,\"end_index\":99}]}]}}\n"+
		"{\"type\":\"response.output_item.done\",\"item\":{\"type\":\"web_search_call\"}}\n{\"type\":\"response.output_item.done\",\"item\":{\"type\":\"reasoning\",\"encrypted_content\":\"x\"}}", ``, uint8(0))
	f.Fuzz(func(t *testing.T, lines, args string, size uint8) {
		var st responsesState
		var res providers.Result
		for _, line := range strings.Split(lines, "\n") {
			var ev openai.ResponseStreamEvent
			if json.Unmarshal([]byte(line), &ev) == nil {
				_, _ = st.event(ev, &res)
			}
		}
		if len(res.ToolCalls) > adapt.MaxToolCalls || res.SearchCalls > providers.MaxSearchCalls || len(res.Sources) > maxSources {
			t.Fatalf("unbounded: %d calls, %d searches, %d sources", len(res.ToolCalls), res.SearchCalls, len(res.Sources))
		}
		for _, c := range res.ToolCalls {
			if c.ID == "" || len(c.Arguments) > adapt.MaxToolArguments {
				t.Fatalf("call %+v", c)
			}
		}
		var fresh responsesState
		var out providers.Result
		_, _ = fresh.event(openai.ResponseStreamEvent{Type: openai.ResponseStreamEventOutputItemAdded, OutputIndex: 2,
			Item: &openai.ResponseOutputItem{Type: "function_call", CallID: "call_q", Name: "fetch_url"}}, &out)
		n := int(size%16) + 1
		for rest := args; rest != ""; {
			piece := rest[:min(n, len(rest))]
			rest = rest[len(piece):]
			_, _ = fresh.event(openai.ResponseStreamEvent{Type: openai.ResponseStreamEventFunctionArgumentsDelta, OutputIndex: 2, Delta: piece}, &out)
		}
		if len(out.ToolCalls) != 1 || out.ToolCalls[0].Arguments != args || out.ToolCalls[0].ID != "call_q" {
			t.Fatalf("calls = %+v, want arguments %q", out.ToolCalls, args)
		}
	})
}
