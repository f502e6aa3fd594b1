package providertest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/providers"
)

// The Responses API fake: POST {URL}/responses on the OpenAI fake, answered
// with the documented streaming events, each an SSE "event:" line naming
// its type and a "data:" object carrying the same type and a sequence
// number: response.created, response.in_progress,
// response.output_item.added, response.content_part.added,
// response.output_text.delta (one per chunk), response.refusal.delta,
// response.output_text.done, response.content_part.done,
// response.output_item.done, and a terminal response.completed (usage with
// input_tokens_details.cached_tokens and output_tokens_details.
// reasoning_tokens), response.incomplete (incomplete_details.reason) or
// response.failed (error). There is no [DONE]: the stream ends after the
// terminal event.

func isResponses(path string) bool { return strings.HasSuffix(path, "/responses") }

// decodeResponses reads instructions and input: a string, or input items
// (messages whose content is a string or a list of input_text/output_text
// parts).
func decodeResponses(req *Request) {
	req.Model = stringField(req.JSON, "model")
	req.System = stringField(req.JSON, "instructions")
	switch in := req.JSON["input"].(type) {
	case string:
		req.Messages = append(req.Messages, providers.Message{Role: providers.RoleUser, Content: in})
	case []any:
		for _, item := range in {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			switch stringField(m, "type") {
			case "", "message":
			case "function_call":
				decodeFunctionCall(req, m)
				continue
			case "function_call_output":
				r := providers.ToolResult{CallID: stringField(m, "call_id"), Content: stringField(m, "output")}
				if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == providers.RoleTool {
					req.Messages[n-1].ToolResults = append(req.Messages[n-1].ToolResults, r)
				} else {
					req.Messages = append(req.Messages, providers.Message{Role: providers.RoleTool, ToolResults: []providers.ToolResult{r}})
				}
				continue
			case "reasoning":
				// Replayed reasoning: kept as the next assistant message's Replay.
				b, _ := json.Marshal(m)
				req.Messages = append(req.Messages, providers.Message{Role: providers.RoleAssistant, Replay: string(b)})
				continue
			default:
				continue
			}
			text := textOf(m["content"])
			switch role := stringField(m, "role"); role {
			case "system", "developer":
				req.System = strings.TrimPrefix(req.System+"\n"+text, "\n")
			case "user":
				req.Messages = append(req.Messages, providers.Message{Role: providers.RoleUser, Content: text})
			case "assistant":
				if last := lastReplay(req); last != nil {
					last.Content = text
					continue
				}
				req.Messages = append(req.Messages, providers.Message{Role: providers.RoleAssistant, Content: text})
			}
		}
	}
}

// lastReplay is the last message when it is an assistant message that so
// far holds only replayed reasoning or calls (the items of one answer).
func lastReplay(req *Request) *providers.Message {
	n := len(req.Messages)
	if n == 0 {
		return nil
	}
	m := &req.Messages[n-1]
	if m.Role == providers.RoleAssistant && m.Content == "" {
		return m
	}
	return nil
}

// decodeFunctionCall adds a function_call item to the answer it belongs to.
func decodeFunctionCall(req *Request, m map[string]any) {
	c := providers.ToolCall{ID: stringField(m, "call_id"), Name: stringField(m, "name"), Arguments: stringField(m, "arguments")}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == providers.RoleAssistant {
		req.Messages[n-1].ToolCalls = append(req.Messages[n-1].ToolCalls, c)
		return
	}
	req.Messages = append(req.Messages, providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{c}})
}

func streamResponses(ev *eventWriter, req Request, reply Reply, chunks []string) {
	seq := 0
	send := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return ev.event(typ, fields)
	}
	const respID, msgID = "resp_fake", "msg_fake"
	response := func(status string, output []any) map[string]any {
		r := map[string]any{
			"id": respID, "object": "response", "created_at": 1700000000, "status": status,
			"model": req.Model, "output": output, "usage": nil, "error": nil, "incomplete_details": nil,
			"instructions": nil, "parallel_tool_calls": true, "store": false, "text": req.JSON["text"],
		}
		if v, ok := req.JSON["max_output_tokens"]; ok {
			r["max_output_tokens"] = v
		}
		return r
	}
	if !send("response.created", map[string]any{"response": response("in_progress", []any{})}) ||
		!send("response.in_progress", map[string]any{"response": response("in_progress", []any{})}) {
		return
	}
	var output []any
	pre, ok := responsesPreItems(send, reply)
	if !ok {
		return
	}
	output = append(output, pre...)
	mi := len(output) // the message's output index
	item := map[string]any{"id": msgID, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
	if !send("response.output_item.added", map[string]any{"output_index": mi, "item": item}) ||
		!send("response.content_part.added", map[string]any{"item_id": msgID, "output_index": mi, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}) {
		return
	}
	var text strings.Builder
	for _, c := range chunks {
		fields := map[string]any{"item_id": msgID, "output_index": mi, "content_index": 0, "delta": c, "logprobs": []any{}}
		fields["type"] = "response.output_text.delta"
		fields["sequence_number"] = seq
		seq++
		if !ev.chunk("response.output_text.delta", fields) {
			return
		}
		text.WriteString(c)
	}
	if reply.Refusal != "" && !send("response.refusal.delta", map[string]any{"item_id": msgID, "output_index": mi, "content_index": 0, "delta": reply.Refusal}) {
		return
	}
	full, annotations := citedText(text.String(), reply.Sources)
	part := map[string]any{"type": "output_text", "text": full, "annotations": annotations}
	if !send("response.output_text.done", map[string]any{"item_id": msgID, "output_index": mi, "content_index": 0, "text": full, "logprobs": []any{}}) ||
		!send("response.content_part.done", map[string]any{"item_id": msgID, "output_index": mi, "content_index": 0, "part": part}) {
		return
	}
	done := map[string]any{"id": msgID, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
	if !send("response.output_item.done", map[string]any{"output_index": mi, "item": done}) {
		return
	}
	output = append(output, done)
	calls, ok := responsesCalls(ev, send, &seq, reply, len(output))
	if !ok {
		return
	}
	output = append(output, calls...)
	u := reply.Usage
	usage := map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CachedTokens, "cache_write_tokens": u.CacheWriteTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          u.Total(),
	}
	switch reply.FinishReason {
	case "max_output_tokens", "content_filter":
		r := response("incomplete", output)
		r["incomplete_details"] = map[string]any{"reason": reply.FinishReason}
		r["usage"] = usage
		send("response.incomplete", map[string]any{"response": r})
	case "failed":
		r := response("failed", []any{})
		r["error"] = map[string]any{"code": "server_error", "message": fmt.Sprintf("The model %s failed to generate a response.", req.Model)}
		send("response.failed", map[string]any{"response": r})
	default:
		r := response("completed", output)
		r["usage"] = usage
		send("response.completed", map[string]any{"response": r})
	}
}

// responsesPreItems sends the items before the answer's message: a
// reasoning item when the reply carries a Replay (its encrypted content),
// then one web_search_call item per search.
func responsesPreItems(send func(string, map[string]any) bool, reply Reply) ([]any, bool) {
	var out []any
	if reply.Replay != "" {
		it := map[string]any{"id": "rs_fake", "type": "reasoning", "summary": []any{}, "encrypted_content": reply.Replay}
		if !send("response.output_item.added", map[string]any{"output_index": len(out), "item": it}) ||
			!send("response.output_item.done", map[string]any{"output_index": len(out), "item": it}) {
			return nil, false
		}
		out = append(out, it)
	}
	for i := range reply.SearchCalls {
		id := fmt.Sprintf("ws_fake_%d", i+1)
		added := map[string]any{"id": id, "type": "web_search_call", "status": "in_progress"}
		done := map[string]any{"id": id, "type": "web_search_call", "status": "completed",
			"action": map[string]any{"type": "search", "query": "parley debate console"}}
		if !send("response.output_item.added", map[string]any{"output_index": len(out), "item": added}) ||
			!send("response.web_search_call.in_progress", map[string]any{"output_index": len(out), "item_id": id}) ||
			!send("response.web_search_call.searching", map[string]any{"output_index": len(out), "item_id": id}) ||
			!send("response.web_search_call.completed", map[string]any{"output_index": len(out), "item_id": id}) ||
			!send("response.output_item.done", map[string]any{"output_index": len(out), "item": done}) {
			return nil, false
		}
		out = append(out, done)
	}
	return out, true
}

// citedText returns the answer's text with a url_citation annotation for
// each source whose cited span it contains (character offsets, as the API
// counts them); a test puts the spans in Reply.Text.
func citedText(text string, sources []providers.Source) (string, []any) {
	annotations := []any{}
	for _, s := range sources {
		at := strings.Index(text, s.CitedText)
		if at < 0 || s.CitedText == "" {
			continue
		}
		start := len([]rune(text[:at]))
		annotations = append(annotations, map[string]any{"type": "url_citation", "url": s.URL, "title": s.Title,
			"start_index": start, "end_index": start + len([]rune(s.CitedText))})
	}
	return text, annotations
}

// responsesCalls sends one function_call item per tool call, its
// arguments as function_call_arguments.delta events (pieces of ArgChunk
// bytes, each counted as a chunk) and a .done.
func responsesCalls(ev *eventWriter, send func(string, map[string]any) bool, seq *int, reply Reply, first int) ([]any, bool) {
	var out []any
	for i, c := range reply.ToolCalls {
		idx, id := first+i, fmt.Sprintf("fc_fake_%d", i+1)
		item := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "call_id": callID(c, i), "name": c.Name, "arguments": ""}
		if !send("response.output_item.added", map[string]any{"output_index": idx, "item": item}) {
			return nil, false
		}
		for _, piece := range argPieces(c.Arguments, reply.ArgChunk) {
			fields := map[string]any{"type": "response.function_call_arguments.delta", "sequence_number": *seq,
				"item_id": id, "output_index": idx, "delta": piece}
			*seq++
			if !ev.chunk("response.function_call_arguments.delta", fields) {
				return nil, false
			}
		}
		done := map[string]any{"id": id, "type": "function_call", "status": "completed", "call_id": callID(c, i), "name": c.Name, "arguments": c.Arguments}
		if !send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "arguments": c.Arguments}) ||
			!send("response.output_item.done", map[string]any{"output_index": idx, "item": done}) {
			return nil, false
		}
		out = append(out, done)
	}
	return out, true
}
