package serve

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize/sanitizetest"
	"github.com/parleyhq/parley/providers/providertest"
)

// A webhook's body holds a model's text as every door's JSON does: the
// characters Go's encoder leaves raw (a C1 CSI, a bidi override) leave
// only as \u escapes, and the body decodes to the whole text.
func TestWebhookPayloadEscapesC1AndBidi(t *testing.T) {
	t.Parallel()
	recv := &hookReceiver{seen: map[string]int{}}
	hook := httptest.NewServer(recv)
	defer hook.Close()
	answer := "ok" + strings.Join(sanitizetest.RawInJSON, "x") + "done"
	f := newFixture(t, func(o *Options) {
		o.Config.Offline = false
		o.Agents = fakeAgents(t, func(providertest.Request) providertest.Reply {
			return providertest.Reply{Chunks: []string{answer}}
		})
		o.Config.Webhooks = []config.WebhookSpec{{URL: hook.URL, Events: []string{"*"}, AllowPrivate: true}}
	})
	id := f.createSession(map[string]any{"mode": "mention"})
	stream := f.events(id, "", "")
	f.must(202, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@chatgpt hi"})
	stream.until(t, "exchange_finished")
	// The webhooks' subscriber queues on its own goroutine: the stream can
	// show the end before the hooks have queued it (idle would then see
	// nothing in flight). Once the end is delivered, every event before
	// it was queued.
	waitFor(t, "exchange_finished delivered to the hook", func() bool {
		recv.mu.Lock()
		defer recv.mu.Unlock()
		return recv.seen["exchange_finished"] > 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.srv.hooks.idle(ctx); err != nil { // every delivery queued by now has been made
		t.Fatal(err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	whole := false
	for _, c := range recv.calls {
		for _, raw := range sanitizetest.RawInJSON {
			if strings.Contains(string(c.body), raw) {
				t.Fatalf("%s webhook body carries %q raw: %s", c.header.Get(HeaderEvent), raw, c.body)
			}
		}
		var decoded any
		if err := json.Unmarshal(c.body, &decoded); err != nil {
			t.Fatalf("body %s: %v", c.body, err)
		}
		if b, _ := json.Marshal(decoded); strings.Contains(string(b), answer) {
			whole = true
		}
	}
	if !whole {
		t.Fatalf("no webhook body decodes to the answer %q", answer)
	}
}
