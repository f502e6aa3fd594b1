package providertest

import (
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
		req.Messages = append(req.Messages, providers.Message{Role: role, Content: geminiPartsText(content["parts"], "")})
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
	chunk := func(text string, last bool) map[string]any {
		cand := map[string]any{
			"content": map[string]any{"parts": []any{map[string]any{"text": text}}, "role": "model"},
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
		}
		return map[string]any{
			"candidates":    []any{cand},
			"usageMetadata": usage,
			"modelVersion":  req.Model,
			"responseId":    "resp_fake",
		}
	}
	if len(chunks) == 0 {
		ev.event("", chunk("", true))
		return
	}
	for i, c := range chunks {
		last := i == len(chunks)-1 && reply.CutAfter == 0 && reply.EndAfter == 0
		if !ev.chunk("", chunk(c, last)) {
			return
		}
	}
	if (reply.CutAfter > 0 || reply.EndAfter > 0) && ev.ok() {
		// CutAfter or EndAfter beyond the chunk count: end normally with an empty last chunk.
		ev.event("", chunk("", true))
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
