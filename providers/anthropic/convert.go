package anthropic

import (
	"errors"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// usesForcedTool reports models older than native structured outputs
// (output_config.format), which get a forced tool call instead.
func usesForcedTool(model string) bool {
	return strings.HasPrefix(strings.ToLower(model), "claude-3")
}

// messageRequest converts a Request to Messages API parameters. The
// Messages API requires max_tokens: without one from the agent it is the
// model's catalogue maximum, capped (ModelInfo.DefaultMaxTokens).
func messageRequest(req providers.Request) (anthropic.MessageNewParams, error) {
	if strings.TrimSpace(req.Model) == "" {
		return anthropic.MessageNewParams{}, errors.New("no model configured")
	}
	msgs, stable := adapt.AlternatePrefix(req.Messages, req.CachePrefix)
	if len(msgs) == 0 {
		return anthropic.MessageNewParams{}, errors.New("no message to send")
	}
	info := req.Info
	if info.Provider == "" && !info.Known {
		info = providers.Family(req.Model)
	}
	out := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: int64(info.DefaultMaxTokens()),
	}
	if req.MaxTokens > 0 {
		out.MaxTokens = int64(req.MaxTokens)
	}
	if req.Temperature != nil && info.AcceptsTemperature() {
		out.Temperature = anthropic.Float(min(max(*req.Temperature, 0), 1))
	}
	// A breakpoint only where the prefix up to it passes the model's
	// shortest cacheable length: below it nothing is cached anyway.
	prefix := estimateTokens(req.System)
	cacheable := func() bool { return prefix >= info.CacheMin }
	if req.System != "" {
		// A cache breakpoint on the system prompt: personas and mode
		// instructions repeat on every turn.
		out.System = []anthropic.TextBlockParam{{Text: req.System}}
		if cacheable() {
			out.System[0].CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
	}
	for i, m := range msgs {
		before, after := toolBlocks(m)
		content := before
		prefix += estimateTokens(m.Content)
		if m.Content != "" {
			block := anthropic.TextBlockParam{Text: m.Content}
			if (i == len(msgs)-1 || i == stable) && cacheable() {
				// Breakpoints after the prefix the engine keeps stable and
				// after the whole history, so the next turn of this agent reads
				// the shared prefix from the cache.
				block.CacheControl = anthropic.NewCacheControlEphemeralParam()
			}
			content = append(content, anthropic.ContentBlockParamUnion{OfText: &block})
		}
		content = append(content, after...)
		if m.Role == providers.RoleAssistant {
			out.Messages = append(out.Messages, anthropic.NewAssistantMessage(content...))
		} else {
			out.Messages = append(out.Messages, anthropic.NewUserMessage(content...))
		}
	}
	out.Tools = toolParams(req)
	if info.AcceptsEffort(req.Effort) {
		// Effort bounds every output token (thinking included); Parley
		// never turns extended thinking on, so no thinking block is sent.
		out.OutputConfig.Effort = anthropic.OutputConfigEffort(req.Effort)
	}
	if req.Schema != nil {
		schema, _ := adapt.StrictSchema(req.Schema.JSON)
		if usesForcedTool(req.Model) {
			addForcedTool(&out, req.Schema, schema) // claude-3 never gets native tools beside it
		} else {
			out.OutputConfig.Format = anthropic.JSONOutputFormatParam{Schema: schema}
		}
	}
	return out, nil
}

// estimateTokens errs low (four bytes a token), so a breakpoint is set
// only where the prefix surely passes the minimum.
func estimateTokens(s string) int { return len(s) / 4 }

// addForcedTool asks for the schema as the input of a tool the model must
// call; the tool input streams as input_json_delta, passed on as text.
func addForcedTool(out *anthropic.MessageNewParams, s *providers.Schema, schema map[string]any) {
	name := adapt.SchemaName(s.Name, "respond")
	tool := anthropic.ToolParam{Name: name, InputSchema: inputSchema(schema)}
	if s.Description != "" {
		tool.Description = anthropic.String(s.Description)
	}
	out.Tools = []anthropic.ToolUnionParam{{OfTool: &tool}}
	out.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: name}}
}

// streamEvent folds one stream event into res and returns its text:
// text deltas, and tool input JSON when the forced tool stands for the
// answer; native tool calls, sources and thinking go to res (tools.go).
func (st *toolState) streamEvent(ev anthropic.MessageStreamEventUnion, res *providers.Result) string {
	_ = st.msg.Accumulate(ev) // an event it cannot fold leaves the segment as it was
	switch ev.Type {
	case "content_block_start":
		st.start(ev)
	case "message_start":
		u := ev.Message.Usage
		res.Usage = providers.Usage{
			// Anthropic counts cache reads and writes apart from input_tokens;
			// Parley's input includes both, and prices writes apart.
			InputTokens:      int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens:     int(u.OutputTokens),
			CachedTokens:     int(u.CacheReadInputTokens),
			CacheWriteTokens: int(u.CacheCreationInputTokens),
		}
	case "content_block_delta":
		text := st.delta(ev)
		if ev.Delta.Type != "text_delta" {
			st.finish(res)
		}
		return text
	case "message_delta":
		u := ev.Usage
		res.Usage.OutputTokens = int(u.OutputTokens)
		// Newer API versions repeat the cumulative input counts here.
		if in := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens; in > 0 {
			res.Usage.InputTokens = int(in)
			res.Usage.CachedTokens = int(u.CacheReadInputTokens)
			res.Usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		}
		if ev.Delta.StopReason != "" {
			res.FinishReason = string(ev.Delta.StopReason)
		}
		res.SearchCalls = min(max(int(u.ServerToolUse.WebSearchRequests), res.SearchCalls), providers.MaxSearchCalls)
		st.finish(res)
	}
	return ""
}
