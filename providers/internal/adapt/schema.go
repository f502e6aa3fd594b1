package adapt

import (
	"slices"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/providers"
)

var schemaNameUnsafe = lazyregexp.New(`[^a-zA-Z0-9_-]+`)

// SchemaName makes a schema name the vendors accept ([a-zA-Z0-9_-], at most
// 64 characters), def when nothing is left.
func SchemaName(name, def string) string {
	name = schemaNameUnsafe.ReplaceAllString(name, "_")
	if name == "" {
		name = def
	}
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// StrictSchema returns a copy of schema with additionalProperties false on
// every object that lacks it, and whether all objects require all their
// properties (which OpenAI's strict mode demands).
func StrictSchema(schema map[string]any) (map[string]any, bool) {
	if schema == nil {
		return map[string]any{"type": "object"}, false
	}
	strict := true
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(t)+1)
			for k, val := range t {
				out[k] = walk(val)
			}
			if props, ok := t["properties"].(map[string]any); ok {
				if _, set := t["additionalProperties"]; !set {
					out["additionalProperties"] = false
				}
				required := StringList(t["required"])
				for p := range props {
					if !slices.Contains(required, p) {
						strict = false
					}
				}
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, val := range t {
				out[i] = walk(val)
			}
			return out
		}
		return v
	}
	out, _ := walk(schema).(map[string]any)
	return out, strict
}

// StringList reads a JSON list of strings; other members are skipped.
func StringList(v any) []string {
	switch t := v.(type) {
	case []string:
		return t
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// ConversationStart opens a history that would otherwise start with an
// assistant message, which the Messages and Gemini APIs refuse.
const ConversationStart = "(conversation start)"

// Alternate returns the messages as strictly alternating APIs want them:
// no empty text, consecutive messages of one role merged, starting with
// the user. A RoleTool message is on the user's side (Anthropic's
// tool_result blocks, Gemini's functionResponse parts): merged, a
// message keeps every call, result and replay of its parts, results
// before the text.
func Alternate(in []providers.Message) []providers.Message {
	out, _ := AlternatePrefix(in, 0)
	return out
}

// AlternatePrefix is Alternate that also says which message ends the first
// prefix input messages (the prompt prefix the engine keeps stable, for a
// cache breakpoint): its index, or -1 when that end falls inside a merged
// message or prefix is 0.
func AlternatePrefix(in []providers.Message, prefix int) ([]providers.Message, int) {
	var out []providers.Message
	stable := -1
	for i, m := range in {
		if strings.TrimSpace(m.Content) != "" || len(m.ToolCalls) > 0 || len(m.ToolResults) > 0 {
			role := providers.RoleUser
			if m.Role == providers.RoleAssistant {
				role = providers.RoleAssistant
			}
			content := m.Content
			if strings.TrimSpace(content) == "" {
				content = ""
			}
			if n := len(out); n > 0 && out[n-1].Role == role {
				last := &out[n-1]
				last.Content = joinText(last.Content, content)
				last.ToolCalls = append(last.ToolCalls, m.ToolCalls...)
				last.ToolResults = append(last.ToolResults, m.ToolResults...)
				if last.Replay == "" {
					last.Replay = m.Replay
				}
				if i == prefix {
					stable = -1 // the prefix's end is now inside a message
				}
			} else {
				// Cloned: a later merge appends, never into the caller's slices.
				out = append(out, providers.Message{Role: role, Content: content, ToolCalls: slices.Clone(m.ToolCalls),
					ToolResults: slices.Clone(m.ToolResults), Replay: m.Replay})
			}
		}
		if i == prefix-1 {
			stable = len(out) - 1
		}
	}
	if len(out) > 0 && out[0].Role == providers.RoleAssistant {
		out = append([]providers.Message{{Role: providers.RoleUser, Content: ConversationStart}}, out...)
		if stable >= 0 {
			stable++
		}
	}
	return out, stable
}

// joinText joins two texts of merged messages with a blank line.
func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
