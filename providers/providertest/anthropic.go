package providertest

import (
	"encoding/json"
	"fmt"
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
		m := providers.Message{Role: providers.Role(role), Content: textOfBlocks(msg["content"])}
		anthropicToolBlocks(&m, msg["content"])
		req.Messages = append(req.Messages, m)
	}
}

// anthropicToolBlocks reads a message's tool_use, tool_result and
// thinking blocks; a user message of tool results is a RoleTool one.
func anthropicToolBlocks(m *providers.Message, content any) {
	blocks, _ := content.([]any)
	var thinking []any
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		switch stringField(block, "type") {
		case "tool_use":
			input, _ := json.Marshal(block["input"])
			m.ToolCalls = append(m.ToolCalls, providers.ToolCall{ID: stringField(block, "id"), Name: stringField(block, "name"), Arguments: string(input)})
		case "tool_result":
			isErr, _ := block["is_error"].(bool)
			m.ToolResults = append(m.ToolResults, providers.ToolResult{CallID: stringField(block, "tool_use_id"),
				Content: textOfBlocks(block["content"]), IsError: isErr})
			m.Role = providers.RoleTool
		case "thinking", "redacted_thinking":
			thinking = append(thinking, block)
		}
	}
	if thinking != nil {
		b, _ := json.Marshal(thinking)
		m.Replay = string(b)
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
	index, ok := anthropicPreBlocks(ev, reply)
	if !ok || !ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": block}) {
		return
	}
	ev.event("ping", map[string]any{"type": "ping"})
	for _, s := range reply.Sources {
		if strings.Contains(reply.Text, s.CitedText) && !ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "citations_delta", "citation": map[string]any{"type": "web_search_result_location",
				"url": s.URL, "title": s.Title, "cited_text": s.CitedText, "encrypted_index": "EqgfCioIARgBIiQ"}}}) {
			return
		}
	}
	for _, c := range chunks {
		delta := map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": deltaType, deltaField: c}}
		if !ev.chunk("content_block_delta", delta) {
			return
		}
	}
	ev.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	if !anthropicCalls(ev, reply, index+1) {
		return
	}
	if len(reply.ToolCalls) > 0 && reply.FinishReason == "" {
		stop = "tool_use"
	}
	ev.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens,
			"server_tool_use": map[string]any{"web_search_requests": reply.SearchCalls}},
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

// anthropicPreBlocks sends the blocks before the answer's text: a thinking
// block when the reply has a Replay (its signature), then per search a
// server_tool_use block and a web_search_tool_result listing every source.
// It returns the next block index.
func anthropicPreBlocks(ev *eventWriter, reply Reply) (int, bool) {
	index := 0
	block := func(start map[string]any, deltas ...map[string]any) bool {
		if !ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start}) {
			return false
		}
		for _, d := range deltas {
			if !ev.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}) {
				return false
			}
		}
		ok := ev.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		return ok
	}
	if reply.Replay != "" && !block(map[string]any{"type": "thinking", "thinking": "", "signature": ""},
		map[string]any{"type": "thinking_delta", "thinking": "Let me check the file."},
		map[string]any{"type": "signature_delta", "signature": reply.Replay}) {
		return 0, false
	}
	for i := range reply.SearchCalls {
		id := fmt.Sprintf("srvtoolu_fake_%d", i+1)
		results := []any{}
		for _, s := range reply.Sources {
			results = append(results, map[string]any{"type": "web_search_result", "url": s.URL, "title": s.Title,
				"encrypted_content": "EqgfCioIARgBIiQ", "page_age": "November 1, 2026"})
		}
		if !block(map[string]any{"type": "server_tool_use", "id": id, "name": "web_search", "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": `{"query": "parley debate console"}`}) ||
			!block(map[string]any{"type": "web_search_tool_result", "tool_use_id": id, "content": results}) {
			return 0, false
		}
	}
	return index, true
}

// anthropicCalls sends one tool_use block per call from index on, its
// input as input_json_delta pieces of ArgChunk bytes (each a chunk).
func anthropicCalls(ev *eventWriter, reply Reply, index int) bool {
	for i, c := range reply.ToolCalls {
		start := map[string]any{"type": "tool_use", "id": callID(c, i), "name": c.Name, "input": map[string]any{}}
		if !ev.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start}) {
			return false
		}
		for _, piece := range argPieces(c.Arguments, reply.ArgChunk) {
			if !ev.chunk("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": piece}}) {
				return false
			}
		}
		if !ev.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}) {
			return false
		}
		index++
	}
	return true
}
