package openai

import (
	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// Native tool calling on Chat Completions: tools as {"type":"function",
// "function":{name, description, parameters}}, an assistant message's
// calls as tool_calls, each result as a "tool" message naming its
// tool_call_id, and streamed calls as tool_calls deltas keyed by index.

// chatTools converts the request's functions.
func chatTools(specs []providers.ToolSpec) []openai.Tool {
	if len(specs) == 0 {
		return nil
	}
	out := make([]openai.Tool, 0, len(specs))
	for _, s := range specs {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: s.Name, Description: s.Description, Parameters: toolParameters(s.Parameters),
		}})
	}
	return out
}

// toolParameters is a function's JSON Schema, an empty object schema when
// it has none (OpenAI refuses a function without parameters on strict
// servers, and some compatible servers on any).
func toolParameters(p map[string]any) jsonSchema {
	if p == nil {
		return jsonSchema{"type": "object", "properties": map[string]any{}}
	}
	return jsonSchema(p)
}

// emptyResult stands for a tool result with no text: OpenAI refuses a
// tool message without content.
const emptyResult = "(no output)"

// chatMessages converts one message; a RoleTool message becomes one
// "tool" message per result.
func chatMessages(m providers.Message) []openai.ChatCompletionMessage {
	switch m.Role {
	case providers.RoleTool:
		out := make([]openai.ChatCompletionMessage, 0, len(m.ToolResults))
		for _, r := range m.ToolResults {
			content := r.Content
			if content == "" {
				content = emptyResult
			}
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: r.CallID, Content: content})
		}
		return out
	case providers.RoleAssistant:
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
		return []openai.ChatCompletionMessage{msg}
	}
	return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: m.Content}}
}

// chatToolDeltas folds a chunk's tool_calls deltas. A delta without an
// index (some compatible servers send each call whole) is a new call when
// it carries an id or nothing began yet, else it continues the last one.
func chatToolDeltas(deltas []openai.ToolCall, calls *adapt.ToolCalls, last *int) {
	for _, d := range deltas {
		key := *last
		switch {
		case d.Index != nil:
			key = *d.Index
		case d.ID != "" || calls.Len() == 0:
			key = -calls.Len() - 1 // a key no vendor index takes
		}
		*last = key
		calls.Start(key, d.ID, d.Function.Name)
		if d.Function.Arguments != "" {
			calls.Append(key, d.Function.Arguments)
		}
	}
}
