package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
)

// Anthropic starts a fake of the Anthropic Messages API: POST /v1/messages
// answered with message_start (input usage), content_block_start,
// content_block_delta (text_delta), content_block_stop, message_delta
// (output usage) and message_stop. When the request forces a tool
// (tool_choice {"type":"tool"}) the text is streamed as input_json_delta of
// a tool_use block instead. Its URL is the bare host, as ANTHROPIC_BASE_URL.
func Anthropic(t testing.TB, h func(Request) Reply) *Server {
	t.Helper()
	return newServer(t, anthropicVendor{}, "", h)
}

type anthropicVendor struct{}

func (anthropicVendor) decode(_ *http.Request, req *Request) {
	if req.JSON == nil {
		return
	}
	req.Model = stringField(req.JSON, "model")
	req.System = textOfBlocks(req.JSON["system"])
	msgs, _ := req.JSON["messages"].([]any)
	for _, m := range msgs {
		msg, ok := m.(map[string]any)
		if !ok {
			continue
		}
		role := stringField(msg, "role")
		if role != "user" && role != "assistant" {
			continue
		}
		req.Messages = append(req.Messages, providers.Message{Role: providers.Role(role), Content: textOfBlocks(msg["content"])})
	}
}

// textOfBlocks joins the text blocks of a string-or-blocks field with "\n"
// when there are several (the system prompt may be split into blocks).
func textOfBlocks(content any) string {
	blocks, ok := content.([]any)
	if !ok {
		return textOf(content)
	}
	var parts []string
	for _, b := range blocks {
		if m, ok := b.(map[string]any); ok {
			if s, ok := m["text"].(string); ok {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n")
}

func (anthropicVendor) badKey(r *http.Request) bool {
	return r.Header.Get("X-Api-Key") == BadKey || r.Header.Get("Authorization") == "Bearer "+BadKey
}

func (v anthropicVendor) authError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_fake_auth")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, v.errorBody(http.StatusUnauthorized, "invalid x-api-key", ""))
}

func (anthropicVendor) errorBody(status int, message, _ string) string {
	typ := "invalid_request_error"
	switch status {
	case http.StatusUnauthorized:
		typ = "authentication_error"
	case http.StatusForbidden:
		typ = "permission_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	case http.StatusRequestEntityTooLarge:
		typ = "request_too_large"
	case http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case 529:
		typ = "overloaded_error"
	default:
		if status >= 500 {
			typ = "api_error"
		}
	}
	body, _ := json.Marshal(map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": message},
		"request_id": "req_fake",
	})
	return string(body)
}

// forcedTool returns the tool name the request forces, "" when none.
func forcedTool(req Request) string {
	choice, _ := req.JSON["tool_choice"].(map[string]any)
	if choice == nil || stringField(choice, "type") != "tool" {
		return ""
	}
	return stringField(choice, "name")
}

func (anthropicVendor) modelList(ids []string) string {
	data := []any{}
	for _, id := range ids {
		data = append(data, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z"})
	}
	first, last := any(nil), any(nil)
	if len(ids) > 0 {
		first, last = ids[0], ids[len(ids)-1]
	}
	body, _ := json.Marshal(map[string]any{"data": data, "has_more": false, "first_id": first, "last_id": last})
	return string(body)
}

func (anthropicVendor) stream(ev *eventWriter, req Request, reply Reply, chunks []string) {
	u := reply.Usage
	// Anthropic's input_tokens excludes cache reads; ours includes them.
	uncached := max(u.InputTokens-u.CachedTokens-u.CacheWriteTokens, 0)
	start := map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": uncached, "output_tokens": 1,
			"cache_creation_input_tokens": u.CacheWriteTokens, "cache_read_input_tokens": u.CachedTokens,
		},
	}}
	if !ev.event("message_start", start) {
		return
	}

	tool := forcedTool(req)
	block := map[string]any{"type": "text", "text": ""}
	deltaType, deltaField := "text_delta", "text"
	stop := "end_turn"
	if tool != "" {
		block = map[string]any{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": map[string]any{}}
		deltaType, deltaField, stop = "input_json_delta", "partial_json", "tool_use"
	}
	if reply.FinishReason != "" {
		stop = reply.FinishReason
	}
	if reply.Refusal != "" {
		stop = "refusal" // Claude's streaming classifiers end the message this way
	}
	if !ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block}) {
		return
	}
	ev.event("ping", map[string]any{"type": "ping"})
	for _, c := range chunks {
		delta := map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": deltaType, deltaField: c}}
		if !ev.chunk("content_block_delta", delta) {
			return
		}
	}
	ev.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens},
	})
	ev.event("message_stop", map[string]any{"type": "message_stop"})
}

func (anthropicVendor) streamError(ev *eventWriter, _ Request, reply Reply) {
	typ := reply.StreamErrorType
	if typ == "" {
		typ = "overloaded_error"
	}
	ev.event("error", map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": reply.StreamError}})
}
