package providertest

import (
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
			if t := stringField(m, "type"); t != "" && t != "message" {
				continue
			}
			text := textOf(m["content"])
			switch role := stringField(m, "role"); role {
			case "system", "developer":
				req.System = strings.TrimPrefix(req.System+"\n"+text, "\n")
			case "user", "assistant":
				req.Messages = append(req.Messages, providers.Message{Role: providers.Role(role), Content: text})
			}
		}
	}
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
	item := map[string]any{"id": msgID, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
	if !send("response.output_item.added", map[string]any{"output_index": 0, "item": item}) ||
		!send("response.content_part.added", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}) {
		return
	}
	var text strings.Builder
	for _, c := range chunks {
		fields := map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "delta": c, "logprobs": []any{}}
		fields["type"] = "response.output_text.delta"
		fields["sequence_number"] = seq
		seq++
		if !ev.chunk("response.output_text.delta", fields) {
			return
		}
		text.WriteString(c)
	}
	if reply.Refusal != "" && !send("response.refusal.delta", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "delta": reply.Refusal}) {
		return
	}
	part := map[string]any{"type": "output_text", "text": text.String(), "annotations": []any{}}
	if !send("response.output_text.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "text": text.String(), "logprobs": []any{}}) ||
		!send("response.content_part.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "part": part}) {
		return
	}
	done := map[string]any{"id": msgID, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
	if !send("response.output_item.done", map[string]any{"output_index": 0, "item": done}) {
		return
	}
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
		r := response("incomplete", []any{done})
		r["incomplete_details"] = map[string]any{"reason": reply.FinishReason}
		r["usage"] = usage
		send("response.incomplete", map[string]any{"response": r})
	case "failed":
		r := response("failed", []any{})
		r["error"] = map[string]any{"code": "server_error", "message": fmt.Sprintf("The model %s failed to generate a response.", req.Model)}
		send("response.failed", map[string]any{"response": r})
	default:
		r := response("completed", []any{done})
		r["usage"] = usage
		send("response.completed", map[string]any{"response": r})
	}
}
