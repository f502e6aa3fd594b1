package gemini

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"google.golang.org/genai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// generateRequest converts a Request to the contents and config of a
// streamGenerateContent call.
func generateRequest(req providers.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	if strings.TrimSpace(req.Model) == "" {
		return nil, nil, errors.New("no model configured")
	}
	var contents []*genai.Content
	names := callNames(req.Messages)
	for _, m := range adapt.Alternate(req.Messages) {
		role := genai.RoleUser
		if m.Role == providers.RoleAssistant {
			role = genai.RoleModel
		}
		parts, after := toolParts(m, names)
		if m.Content != "" {
			parts = append(parts, genai.NewPartFromText(m.Content))
		}
		contents = append(contents, &genai.Content{Role: role, Parts: append(parts, after...)})
	}
	if len(contents) == 0 {
		return nil, nil, errors.New("no message to send")
	}
	off := false
	cfg := &genai.GenerateContentConfig{
		// A resumed stream would repeat a request behind the retry policy's
		// back; continuation is for very long generations Parley does not ask.
		AutomaticContinuation: &off,
	}
	cfg.Tools = geminiTools(req)
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{genai.NewPartFromText(req.System)}}
	}
	info := req.Info
	if info.Provider == "" && !info.Known {
		info = providers.Family(req.Model)
	}
	// Gemini 3 deprecates temperature (Google advises its default): the
	// catalogue says which models still take one.
	if req.Temperature != nil && info.AcceptsTemperature() {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.MaxTokens, 1<<30))
	}
	if info.AcceptsEffort(req.Effort) {
		// thinkingLevel alone: Gemini refuses a request with both it and
		// thinkingBudget.
		cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevel(strings.ToUpper(req.Effort))}
	}
	if req.Schema != nil {
		cfg.ResponseMIMEType = "application/json"
		if schema, ok := geminiSchema(req.Schema.JSON); ok {
			cfg.ResponseSchema = schema
		} else {
			// Keywords responseSchema lacks: JSON Schema as is.
			cfg.ResponseJsonSchema = req.Schema.JSON
		}
	}
	return contents, cfg, nil
}

// geminiSchema converts the JSON Schema subset Parley uses to Gemini's
// OpenAPI-style Schema; false when the schema uses anything else.
func geminiSchema(js map[string]any) (*genai.Schema, bool) {
	if js == nil {
		return nil, false
	}
	out := &genai.Schema{}
	for key, v := range js {
		ok := true
		switch key {
		case "type":
			ok = setGeminiType(out, v)
		case "description":
			out.Description, ok = v.(string)
		case "title":
			out.Title, ok = v.(string)
		case "format":
			out.Format, ok = v.(string)
		case "pattern":
			out.Pattern, ok = v.(string)
		case "enum":
			out.Enum = adapt.StringList(v)
			ok = len(out.Enum) == lenOf(v)
		case "required":
			out.Required = adapt.StringList(v)
			ok = len(out.Required) == lenOf(v)
		case "nullable":
			b, isBool := v.(bool)
			out.Nullable, ok = &b, isBool
		case "properties":
			props, isMap := v.(map[string]any)
			if !isMap {
				return nil, false
			}
			out.Properties = make(map[string]*genai.Schema, len(props))
			for name, p := range props {
				pm, isMap := p.(map[string]any)
				if !isMap {
					return nil, false
				}
				if out.Properties[name], ok = geminiSchema(pm); !ok {
					return nil, false
				}
			}
		case "items":
			im, isMap := v.(map[string]any)
			if !isMap {
				return nil, false
			}
			out.Items, ok = geminiSchema(im)
		case "anyOf":
			list, isList := v.([]any)
			if !isList {
				return nil, false
			}
			for _, alt := range list {
				am, isMap := alt.(map[string]any)
				if !isMap {
					return nil, false
				}
				s, good := geminiSchema(am)
				if !good {
					return nil, false
				}
				out.AnyOf = append(out.AnyOf, s)
			}
		case "minimum", "maximum":
			f, isNum := number(v)
			if key == "minimum" {
				out.Minimum = &f
			} else {
				out.Maximum = &f
			}
			ok = isNum
		case "minItems", "maxItems", "minLength", "maxLength":
			f, isNum := number(v)
			n := int64(f)
			switch key {
			case "minItems":
				out.MinItems = &n
			case "maxItems":
				out.MaxItems = &n
			case "minLength":
				out.MinLength = &n
			case "maxLength":
				out.MaxLength = &n
			}
			ok = isNum
		case "additionalProperties":
			// Gemini objects are closed already; only false is expressible.
			ok = v == false
		case "default":
			out.Default = v
		case "$schema":
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
	}
	if len(out.Properties) > 0 {
		out.PropertyOrdering = propertyOrder(out)
	}
	return out, true
}

// propertyOrder puts required properties first, in their listed order (a
// vote before its reasoning), then the rest alphabetically; Gemini would
// otherwise order them alphabetically.
func propertyOrder(s *genai.Schema) []string {
	var order []string
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !slices.Contains(order, r) {
			order = append(order, r)
		}
	}
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(order, name) {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}

func setGeminiType(out *genai.Schema, v any) bool {
	names := adapt.StringList(v)
	if s, ok := v.(string); ok {
		names = []string{s}
	}
	var types []string
	for _, n := range names {
		if n == "null" {
			t := true
			out.Nullable = &t
			continue
		}
		types = append(types, n)
	}
	if len(types) != 1 {
		return false
	}
	switch types[0] {
	case "string":
		out.Type = genai.TypeString
	case "number":
		out.Type = genai.TypeNumber
	case "integer":
		out.Type = genai.TypeInteger
	case "boolean":
		out.Type = genai.TypeBoolean
	case "array":
		out.Type = genai.TypeArray
	case "object":
		out.Type = genai.TypeObject
	default:
		return false
	}
	return true
}

func lenOf(v any) int {
	switch t := v.(type) {
	case []any:
		return len(t)
	case []string:
		return len(t)
	}
	return -1
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}

// streamChunk folds one response chunk into res and returns its text
// (thought summaries are not part of the answer). usageMetadata is a
// running total, so the last chunk's is the request's.
func (st *toolState) streamChunk(chunk *genai.GenerateContentResponse, res *providers.Result) string {
	if chunk == nil {
		return ""
	}
	if u := chunk.UsageMetadata; u != nil {
		res.Usage = providers.Usage{
			InputTokens: int(u.PromptTokenCount),
			// Thinking tokens are billed as output.
			OutputTokens:    int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
			ReasoningTokens: int(u.ThoughtsTokenCount),
			CachedTokens:    int(u.CachedContentTokenCount),
		}
	}
	if fb := chunk.PromptFeedback; fb != nil && fb.BlockReason != "" {
		// The prompt itself was refused: no candidate follows.
		res.FinishReason = providers.BlockedPrefix + string(fb.BlockReason)
		res.Detail = fb.BlockReasonMessage
	}
	if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
		return ""
	}
	cand := chunk.Candidates[0]
	grounding(cand.GroundingMetadata, res)
	if cand.FinishReason != "" {
		res.FinishReason = string(cand.FinishReason)
		res.Detail = cand.FinishMessage
	}
	if cand.Content == nil {
		return ""
	}
	var b strings.Builder
	for _, part := range cand.Content.Parts {
		if part != nil && !part.Thought {
			b.WriteString(part.Text)
			st.part(part, res)
		}
	}
	return b.String()
}
