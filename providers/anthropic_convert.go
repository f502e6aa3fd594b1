package providers

import (
	"errors"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
)

// DefaultAnthropicMaxTokens is sent when a request sets none: the Messages
// API requires max_tokens.
const DefaultAnthropicMaxTokens = 4096

// conversationStart opens a history that would otherwise start with an
// assistant message, which the Messages API refuses.
const conversationStart = "(conversation start)"

// usesForcedTool reports models older than native structured outputs
// (output_config.format), which get a forced tool call instead.
func usesForcedTool(model string) bool {
	return strings.HasPrefix(strings.ToLower(model), "claude-3")
}

// anthropicRequest converts a Request to Messages API parameters.
func anthropicRequest(req Request) (anthropic.MessageNewParams, error) {
	if strings.TrimSpace(req.Model) == "" {
		return anthropic.MessageNewParams{}, errors.New("no model configured")
	}
	msgs := alternate(req.Messages)
	if len(msgs) == 0 {
		return anthropic.MessageNewParams{}, errors.New("no message to send")
	}
	out := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: DefaultAnthropicMaxTokens,
	}
	if req.MaxTokens > 0 {
		out.MaxTokens = int64(req.MaxTokens)
	}
	if req.Temperature != nil {
		out.Temperature = anthropic.Float(min(max(*req.Temperature, 0), 1))
	}
	if req.System != "" {
		// A cache breakpoint on the system prompt: personas and mode
		// instructions repeat on every turn.
		out.System = []anthropic.TextBlockParam{{
			Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam(),
		}}
	}
	for i, m := range msgs {
		block := anthropic.TextBlockParam{Text: m.Content}
		if i == len(msgs)-1 {
			// A second breakpoint after the history, so the next turn of
			// this agent reads the shared prefix from the cache.
			block.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		content := []anthropic.ContentBlockParamUnion{{OfText: &block}}
		if m.Role == RoleAssistant {
			out.Messages = append(out.Messages, anthropic.NewAssistantMessage(content...))
		} else {
			out.Messages = append(out.Messages, anthropic.NewUserMessage(content...))
		}
	}
	if req.Schema != nil {
		schema, _ := strictSchema(req.Schema.JSON)
		if usesForcedTool(req.Model) {
			addForcedTool(&out, req.Schema, schema)
		} else {
			out.OutputConfig = anthropic.OutputConfigParam{
				Format: anthropic.JSONOutputFormatParam{Schema: schema},
			}
		}
	}
	return out, nil
}

// addForcedTool asks for the schema as the input of a tool the model must
// call; the tool input streams as input_json_delta, passed on as text.
func addForcedTool(out *anthropic.MessageNewParams, s *Schema, schema map[string]any) {
	name := schemaNameUnsafe.ReplaceAllString(s.Name, "_")
	if name == "" {
		name = "respond"
	}
	if len(name) > 64 {
		name = name[:64]
	}
	input := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			input.Properties = v
		case "required":
			input.Required = stringList(v)
		default:
			input.ExtraFields[k] = v
		}
	}
	tool := anthropic.ToolParam{Name: name, InputSchema: input}
	if s.Description != "" {
		tool.Description = anthropic.String(s.Description)
	}
	out.Tools = []anthropic.ToolUnionParam{{OfTool: &tool}}
	out.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: name}}
}

// alternate returns the messages as the Messages API wants them: no empty
// text, consecutive messages of one role merged, starting with the user.
func alternate(in []Message) []Message {
	var out []Message
	for _, m := range in {
		if strings.TrimSpace(m.Content) == "" {
			continue
		}
		role := RoleUser
		if m.Role == RoleAssistant {
			role = RoleAssistant
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content += "\n\n" + m.Content
			continue
		}
		out = append(out, Message{Role: role, Content: m.Content})
	}
	if len(out) > 0 && out[0].Role == RoleAssistant {
		out = append([]Message{{Role: RoleUser, Content: conversationStart}}, out...)
	}
	return out
}

// anthropicEvent folds one stream event into res and returns its text:
// text deltas, and tool input JSON when a tool call stands for the answer.
func anthropicEvent(ev anthropic.MessageStreamEventUnion, res *Result) string {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		res.Usage = Usage{
			// Anthropic counts cache reads and writes apart from input_tokens.
			InputTokens:  int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens: int(u.OutputTokens),
			CachedTokens: int(u.CacheReadInputTokens),
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			return ev.Delta.Text
		case "input_json_delta":
			return ev.Delta.PartialJSON
		}
	case "message_delta":
		u := ev.Usage
		res.Usage.OutputTokens = int(u.OutputTokens)
		// Newer API versions repeat the cumulative input counts here.
		if in := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens; in > 0 {
			res.Usage.InputTokens = int(in)
			res.Usage.CachedTokens = int(u.CacheReadInputTokens)
		}
		if ev.Delta.StopReason != "" {
			res.FinishReason = string(ev.Delta.StopReason)
		}
	}
	return ""
}
