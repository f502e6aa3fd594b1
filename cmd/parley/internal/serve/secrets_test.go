package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
	"github.com/parleyhq/parley/debate/sanitize/sanitizetest"
	"github.com/parleyhq/parley/providers/providertest"
)

// Issue 42, break 2: a provider error echoing the key split by a character
// a door strips reaches no door whole — not the event stream (SSE), the
// session's JSON, the page, nor the OpenAI door — and each says the error.
func TestSplitKeyReachesNoServerDoor(t *testing.T) {
	t.Parallel()
	names := sanitizetest.SeparatorNames()
	fake := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Status: 401, Text: sanitizetest.SplitKeyMessage(r.Messages[len(r.Messages)-1].Content)}
	})
	f := newFixture(t, func(o *Options) {
		o.Config.Offline = false
		o.Agents = openAIWithKey(fake.URL, sanitizetest.SplitKey)
	})
	f.srv.ServeWebView(web.Options{})
	for i, name := range names {
		q := sanitizetest.Question("chatgpt", i)
		id := f.createSession(map[string]any{"mode": "mention"})
		stream := f.events(id, "", "")
		f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": q})
		var sse strings.Builder
		for _, ev := range stream.until(t, "exchange_finished") {
			sse.WriteString(ev.data + "\n")
		}
		stream.close()
		sanitizetest.CheckScrubbed(t, "SSE", name, sse.String())
		f.waitIdle(id)
		_, session := f.do("GET", "/api/v1/sessions/"+id, nil)
		sanitizetest.CheckScrubbed(t, "GET /api/v1/sessions/{id}", name, string(session))
		_, page := f.do("GET", "/s/"+id, nil)
		sanitizetest.CheckScrubbed(t, "the page", name, string(page))
		_, completion := f.do("POST", "/v1/chat/completions", map[string]any{"model": "chatgpt",
			"messages": []map[string]string{{"role": "user", "content": q}}})
		sanitizetest.CheckScrubbed(t, "the OpenAI door", name, string(completion))
	}
}
