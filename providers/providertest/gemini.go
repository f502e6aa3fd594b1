package providertest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
)

// Gemini starts a fake of the Gemini API (generativelanguage):
// POST /v1beta/models/{model}:streamGenerateContent?alt=sse answered with
// GenerateContentResponse SSE chunks, usageMetadata on every chunk and
// complete on the last one. Its URL is the bare host, as
// GOOGLE_GEMINI_BASE_URL. Errors use Google's error JSON; a 429 carries a
// google.rpc.RetryInfo detail when Reply.RetryAfter is a number of seconds.
func Gemini(t testing.TB, h func(Request) Reply) *Server {
	t.Helper()
	return newServer(t, geminiVendor{}, "", h)
}

type geminiVendor struct{}

func (geminiVendor) decode(r *http.Request, req *Request) {
	// The model is in the path: /v1beta/models/{model}:streamGenerateContent.
	if _, rest, ok := strings.Cut(r.URL.Path, "/models/"); ok {
		req.Model, _, _ = strings.Cut(rest, ":")
	}
	if req.JSON == nil {
		return
	}
	if si, ok := req.JSON["systemInstruction"].(map[string]any); ok {
		req.System = geminiPartsText(si["parts"], "\n")
	}
	contents, _ := req.JSON["contents"].([]any)
	for _, c := range contents {
		content, ok := c.(map[string]any)
		if !ok {
			continue
		}
		role := providers.RoleUser
		if stringField(content, "role") == "model" {
			role = providers.RoleAssistant
		}
		m := providers.Message{Role: role, Content: geminiPartsText(content["parts"], "")}
		geminiToolParts(&m, content["parts"])
		req.Messages = append(req.Messages, m)
	}
}

// geminiToolParts reads functionCall parts (their thought signatures,
// decoded, become the message's Replay) and functionResponse parts (a
// user turn of them is a RoleTool message).
func geminiToolParts(m *providers.Message, parts any) {
	list, _ := parts.([]any)
	for _, item := range list {
		p, _ := item.(map[string]any)
		if fc, ok := p["functionCall"].(map[string]any); ok {
			args, _ := json.Marshal(fc["args"])
			if fc["args"] == nil {
				args = []byte("{}")
			}
			sig := stringField(p, "thoughtSignature")
			m.ToolCalls = append(m.ToolCalls, providers.ToolCall{ID: stringField(fc, "id"), Name: stringField(fc, "name"), Arguments: string(args), Signature: sig})
			if raw, err := base64.StdEncoding.DecodeString(sig); err == nil {
				m.Replay += string(raw)
			}
		}
		if fr, ok := p["functionResponse"].(map[string]any); ok {
			resp, _ := fr["response"].(map[string]any)
			r := providers.ToolResult{CallID: stringField(fr, "id"), Name: stringField(fr, "name"), Content: stringField(resp, "output")}
			if e, ok := resp["error"].(string); ok {
				r.Content, r.IsError = e, true
			}
			m.ToolResults = append(m.ToolResults, r)
			m.Role = providers.RoleTool
		}
	}
}

func geminiPartsText(parts any, sep string) string {
	list, _ := parts.([]any)
	var texts []string
	for _, p := range list {
		if m, ok := p.(map[string]any); ok {
			if s, ok := m["text"].(string); ok {
				texts = append(texts, s)
			}
		}
	}
	return strings.Join(texts, sep)
}

func (geminiVendor) badKey(r *http.Request) bool {
	return r.Header.Get("X-Goog-Api-Key") == BadKey || r.URL.Query().Get("key") == BadKey
}

func (geminiVendor) authError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusBadRequest)
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code":    400,
		"message": "API key not valid. Please pass a valid API key.",
		"status":  "INVALID_ARGUMENT",
		"details": []any{
			map[string]any{
				"@type":    "type.googleapis.com/google.rpc.ErrorInfo",
				"reason":   "API_KEY_INVALID",
				"domain":   "googleapis.com",
				"metadata": map[string]any{"service": "generativelanguage.googleapis.com"},
			},
			map[string]any{
				"@type":  "type.googleapis.com/google.rpc.LocalizedMessage",
				"locale": "en-US", "message": "API key not valid. Please pass a valid API key.",
			},
		},
	}})
	_, _ = w.Write(body)
}

// errorBody renders Google's error JSON; retryAfter, when a number of
// seconds, becomes a RetryInfo detail as the real service sends on 429.
func (geminiVendor) errorBody(status int, message, retryAfter string) string {
	statusName := "INVALID_ARGUMENT"
	switch status {
	case http.StatusUnauthorized:
		statusName = "UNAUTHENTICATED"
	case http.StatusForbidden:
		statusName = "PERMISSION_DENIED"
	case http.StatusNotFound:
		statusName = "NOT_FOUND"
	case http.StatusTooManyRequests:
		statusName = "RESOURCE_EXHAUSTED"
	case http.StatusInternalServerError:
		statusName = "INTERNAL"
	case http.StatusServiceUnavailable:
		statusName = "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		statusName = "DEADLINE_EXCEEDED"
	}
	e := map[string]any{"code": status, "message": message, "status": statusName}
	if secs, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && secs >= 0 {
		e["details"] = []any{map[string]any{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": strconv.Itoa(secs) + "s",
		}}
	}
	body, _ := json.Marshal(map[string]any{"error": e})
	return string(body)
}

func (geminiVendor) modelList(ids []string) string {
	models := []any{}
	for _, id := range ids {
		models = append(models, map[string]any{"name": "models/" + id, "displayName": id,
			"supportedGenerationMethods": []any{"generateContent", "streamGenerateContent"}})
	}
	body, _ := json.Marshal(map[string]any{"models": models})
	return string(body)
}

func (geminiVendor) stream(ev *eventWriter, req Request, reply Reply, chunks []string) {
	u := reply.Usage
	if reply.BlockReason != "" {
		// A blocked prompt: feedback and usage, no candidate at all.
		ev.event("", map[string]any{
			"promptFeedback": map[string]any{"blockReason": reply.BlockReason},
			"usageMetadata":  map[string]any{"promptTokenCount": u.InputTokens, "totalTokenCount": u.InputTokens},
			"modelVersion":   req.Model, "responseId": "resp_fake",
		})
		return
	}
	chunk := func(part map[string]any, last bool) map[string]any {
		cand := map[string]any{
			"content": map[string]any{"parts": []any{part}, "role": "model"},
			"index":   0,
		}
		usage := map[string]any{"promptTokenCount": u.InputTokens, "totalTokenCount": u.InputTokens}
		if last {
			finish := reply.FinishReason
			if finish == "" {
				finish = "STOP"
			}
			cand["finishReason"] = finish
			usage = map[string]any{
				"promptTokenCount":     u.InputTokens,
				"candidatesTokenCount": u.OutputTokens - u.ReasoningTokens,
				"thoughtsTokenCount":   u.ReasoningTokens,
				"totalTokenCount":      u.Total(),
				"promptTokensDetails":  []any{map[string]any{"modality": "TEXT", "tokenCount": u.InputTokens}},
			}
			if u.CachedTokens > 0 {
				usage["cachedContentTokenCount"] = u.CachedTokens
			}
			if g := geminiGrounding(reply); g != nil {
				cand["groundingMetadata"] = g
			}
		}
		return map[string]any{
			"candidates":    []any{cand},
			"usageMetadata": usage,
			"modelVersion":  req.Model,
			"responseId":    "resp_fake",
		}
	}
	parts := geminiParts(chunks, reply)
	if len(parts) == 0 {
		ev.event("", chunk(map[string]any{"text": ""}, true))
		return
	}
	for i, p := range parts {
		last := i == len(parts)-1 && reply.CutAfter == 0 && reply.EndAfter == 0
		if !ev.chunk("", chunk(p, last)) {
			return
		}
	}
	if (reply.CutAfter > 0 || reply.EndAfter > 0) && ev.ok() {
		// CutAfter or EndAfter beyond the chunk count: end normally with an empty last chunk.
		ev.event("", chunk(map[string]any{"text": ""}, true))
	}
}

// streamError sends the error object Gemini ends a failing stream with.
func (geminiVendor) streamError(ev *eventWriter, _ Request, reply Reply) {
	status := reply.StreamErrorType
	if status == "" {
		status = "UNAVAILABLE"
	}
	ev.event("", map[string]any{"error": map[string]any{"code": 503, "message": reply.StreamError, "status": status}})
}

// geminiParts are the parts the answer streams, one a chunk: the text
// chunks, then one functionCall part per call (whole: Gemini does not
// stream arguments), the first carrying the Replay as its thought
// signature.
func geminiParts(chunks []string, reply Reply) []map[string]any {
	var out []map[string]any
	for _, c := range chunks {
		out = append(out, map[string]any{"text": c})
	}
	for i, c := range reply.ToolCalls {
		var args any = map[string]any{}
		_ = json.Unmarshal([]byte(c.Arguments), &args)
		p := map[string]any{"functionCall": map[string]any{"id": callID(c, i), "name": c.Name, "args": args}}
		if i == 0 && reply.Replay != "" {
			p["thoughtSignature"] = base64.StdEncoding.EncodeToString([]byte(reply.Replay))
		}
		out = append(out, p)
	}
	return out
}

// geminiGrounding is the groundingMetadata of a searched answer: one query
// a search, one chunk a source, and a support for each source whose cited
// span the text contains (byte offsets into the text, as Gemini gives them).
func geminiGrounding(reply Reply) map[string]any {
	if reply.SearchCalls == 0 && len(reply.Sources) == 0 {
		return nil
	}
	queries, chunks, supports := []any{}, []any{}, []any{}
	for i := range reply.SearchCalls {
		queries = append(queries, "parley debate console "+strconv.Itoa(i+1))
	}
	for i, s := range reply.Sources {
		chunks = append(chunks, map[string]any{"web": map[string]any{"uri": s.URL, "title": s.Title, "domain": s.Title}})
		if at := strings.Index(reply.Text, s.CitedText); at >= 0 && s.CitedText != "" {
			supports = append(supports, map[string]any{
				"segment":               map[string]any{"startIndex": at, "endIndex": at + len(s.CitedText), "text": s.CitedText},
				"groundingChunkIndices": []any{i},
			})
		}
	}
	return map[string]any{"webSearchQueries": queries, "groundingChunks": chunks, "groundingSupports": supports,
		"searchEntryPoint": map[string]any{"renderedContent": "<div class=\"container\">parley</div>"}}
}
