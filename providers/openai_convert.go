package providers

import (
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// isReasoningModel reports the OpenAI models that take no custom
// temperature and want max_completion_tokens: the gpt-5 family and the o1,
// o3, o4 series. A routing prefix ("openai/gpt-5") is ignored.
func isReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, prefix := range []string{"gpt-5", "o1", "o3", "o4"} {
		if strings.HasPrefix(m, prefix) {
			return true
		}
	}
	return false
}

// openAIRequest converts a Request to a streaming chat completion request.
func openAIRequest(req Request) (openai.ChatCompletionRequest, error) {
	if strings.TrimSpace(req.Model) == "" {
		return openai.ChatCompletionRequest{}, errors.New("no model configured")
	}
	out := openai.ChatCompletionRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if req.System != "" {
		out.Messages = append(out.Messages, openai.ChatCompletionMessage{
			Role: openai.ChatMessageRoleSystem, Content: req.System,
		})
	}
	for _, m := range req.Messages {
		role := openai.ChatMessageRoleUser
		if m.Role == RoleAssistant {
			role = openai.ChatMessageRoleAssistant
		}
		out.Messages = append(out.Messages, openai.ChatCompletionMessage{Role: role, Content: m.Content})
	}

	reasoning := isReasoningModel(req.Model)
	if req.MaxTokens > 0 {
		if reasoning {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			out.MaxTokens = req.MaxTokens
		}
	}
	if req.Temperature != nil && !reasoning {
		t := float32(*req.Temperature)
		if t == 0 {
			// go-openai omits a zero temperature (omitempty), which would
			// silently mean the default 1; the smallest positive float is
			// greedy decoding in effect.
			t = math.SmallestNonzeroFloat32
		}
		out.Temperature = t
	}
	if req.Schema != nil {
		out.ResponseFormat = openAIResponseFormat(req.Schema)
	}
	return out, nil
}

// jsonSchema lets a map stand where go-openai wants a json.Marshaler.
type jsonSchema map[string]any

func (s jsonSchema) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]any(s)) }

var schemaNameUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// openAIResponseFormat maps a Schema to response_format json_schema. Strict
// mode needs every object closed (additionalProperties false) with all its
// properties required; the schema is adapted when that keeps its meaning,
// and sent non-strict when it has optional properties.
func openAIResponseFormat(s *Schema) *openai.ChatCompletionResponseFormat {
	name := schemaNameUnsafe.ReplaceAllString(s.Name, "_")
	if name == "" {
		name = "response"
	}
	if len(name) > 64 {
		name = name[:64]
	}
	schema, strict := strictSchema(s.JSON)
	return &openai.ChatCompletionResponseFormat{
		Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
			Name:        name,
			Description: s.Description,
			Schema:      jsonSchema(schema),
			Strict:      strict,
		},
	}
}

// strictSchema returns a copy of schema with additionalProperties false on
// every object that lacks it, and whether all objects require all their
// properties (which strict mode demands).
func strictSchema(schema map[string]any) (map[string]any, bool) {
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
				required := stringList(t["required"])
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

func stringList(v any) []string {
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

// openAIChunk folds one stream chunk into res and returns its text. The
// usage chunk has no choices; some servers send usage on every chunk, and
// the last one wins.
func openAIChunk(chunk openai.ChatCompletionStreamResponse, res *Result) string {
	if u := chunk.Usage; u != nil {
		res.Usage = Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
		if d := u.PromptTokensDetails; d != nil {
			res.Usage.CachedTokens = d.CachedTokens
		}
	}
	if len(chunk.Choices) == 0 {
		return ""
	}
	choice := chunk.Choices[0]
	if choice.FinishReason != "" {
		res.FinishReason = string(choice.FinishReason)
	}
	return choice.Delta.Content
}
