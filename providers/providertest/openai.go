package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
)

// OpenAI starts a fake of OpenAI's two APIs (and of any OpenAI-compatible
// server). Its URL ends in /v1. POST {URL}/chat/completions is answered
// with chat.completion.chunk SSE events, a final usage chunk with empty
// choices when the request set stream_options.include_usage, and
// "data: [DONE]"; POST {URL}/responses with the Responses API's named
// events (responses.go); GET {URL}/models with the model list.
func OpenAI(t testing.TB, h func(Request) Reply) *Server {
	t.Helper()
	return newServer(t, openaiVendor{}, "/v1", h)
}

type openaiVendor struct{}

func (openaiVendor) decode(_ *http.Request, req *Request) {
	if req.JSON == nil {
		return
	}
	if isResponses(req.Path) {
		decodeResponses(req)
		return
	}
	req.Model = stringField(req.JSON, "model")
	msgs, _ := req.JSON["messages"].([]any)
	var system []string
	for _, m := range msgs {
		msg, ok := m.(map[string]any)
		if !ok {
			continue
		}
		text := textOf(msg["content"])
		switch role := stringField(msg, "role"); role {
		case "system", "developer":
			system = append(system, text)
		case "user", "assistant":
			req.Messages = append(req.Messages, providers.Message{Role: providers.Role(role), Content: text, ToolCalls: chatCalls(msg)})
		case "tool":
			// Consecutive tool messages answer one assistant message.
			r := providers.ToolResult{CallID: stringField(msg, "tool_call_id"), Content: text}
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == providers.RoleTool {
				req.Messages[n-1].ToolResults = append(req.Messages[n-1].ToolResults, r)
			} else {
				req.Messages = append(req.Messages, providers.Message{Role: providers.RoleTool, ToolResults: []providers.ToolResult{r}})
			}
		}
	}
	req.System = strings.Join(system, "\n")
}

func (openaiVendor) badKey(r *http.Request) bool {
	return r.Header.Get("Authorization") == "Bearer "+BadKey
}

func (v openaiVendor) authError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: bad-key. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
}

func (openaiVendor) errorBody(status int, message, _ string) string {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": typ, "param": nil, "code": code,
	}})
	return string(body)
}

func (openaiVendor) modelList(ids []string) string {
	data := []any{}
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "openai"})
	}
	body, _ := json.Marshal(map[string]any{"object": "list", "data": data})
	return string(body)
}

func (openaiVendor) stream(ev *eventWriter, req Request, reply Reply, chunks []string) {
	if isResponses(req.Path) {
		streamResponses(ev, req, reply, chunks)
		return
	}
	model := req.Model
	chunk := func(choices []any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000,
			"model": model, "system_fingerprint": "fp_fake", "choices": choices,
		}
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
	}
	if !ev.event("", chunk(choice(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))) {
		return
	}
	for _, c := range chunks {
		if !ev.chunk("", chunk(choice(map[string]any{"content": c}, nil))) {
			return
		}
	}
	if reply.Refusal != "" && !ev.event("", chunk(choice(map[string]any{"refusal": reply.Refusal}, nil))) {
		return
	}
	for i, c := range reply.ToolCalls {
		for j, piece := range argPieces(c.Arguments, reply.ArgChunk) {
			call := map[string]any{"index": i, "function": map[string]any{"arguments": piece}}
			if j == 0 {
				call["id"], call["type"] = callID(c, i), "function"
				call["function"].(map[string]any)["name"] = c.Name
			}
			if !ev.chunk("", chunk(choice(map[string]any{"tool_calls": []any{call}}, nil))) {
				return
			}
		}
	}
	finish := reply.FinishReason
	switch {
	case finish != "":
	case len(reply.ToolCalls) > 0:
		finish = "tool_calls"
	default:
		finish = "stop"
	}
	ev.event("", chunk(choice(map[string]any{}, finish)))
	if opts, _ := req.JSON["stream_options"].(map[string]any); opts != nil && opts["include_usage"] == true {
		usage := map[string]any{
			"prompt_tokens":     reply.Usage.InputTokens,
			"completion_tokens": reply.Usage.OutputTokens,
			"total_tokens":      reply.Usage.Total(),
			"prompt_tokens_details": map[string]any{
				"cached_tokens": reply.Usage.CachedTokens, "audio_tokens": 0,
			},
			"completion_tokens_details": map[string]any{"reasoning_tokens": reply.Usage.ReasoningTokens},
		}
		c := chunk([]any{})
		c["usage"] = usage
		ev.event("", c)
	}
	ev.event("", "[DONE]")
}

// streamError sends Chat Completions' error object on a data line, or the
// Responses API's error event.
func (openaiVendor) streamError(ev *eventWriter, req Request, reply Reply) {
	typ := reply.StreamErrorType
	if typ == "" {
		typ = "server_error"
	}
	if isResponses(req.Path) {
		ev.event("error", map[string]any{"type": "error", "code": typ, "message": reply.StreamError, "param": nil, "sequence_number": 99})
		return
	}
	ev.event("", map[string]any{"error": map[string]any{"message": reply.StreamError, "type": typ, "param": nil, "code": nil}})
}

// chatCalls reads an assistant message's tool_calls.
func chatCalls(msg map[string]any) []providers.ToolCall {
	list, _ := msg["tool_calls"].([]any)
	var out []providers.ToolCall
	for _, item := range list {
		c, _ := item.(map[string]any)
		fn, _ := c["function"].(map[string]any)
		if c == nil || fn == nil {
			continue
		}
		out = append(out, providers.ToolCall{ID: stringField(c, "id"), Name: stringField(fn, "name"), Arguments: stringField(fn, "arguments")})
	}
	return out
}
