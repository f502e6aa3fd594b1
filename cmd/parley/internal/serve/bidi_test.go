package serve

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers/providertest"
)

// A model that answers with bidi overrides and hidden characters (Trojan
// Source) streams to the page without them: the event stream strips every
// invisible format control from the JSON it sends, and the text is whole.
func TestEventStreamStripsBidiControls(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) {
		o.Config.Offline = false
		o.Agents = fakeAgents(t, func(providertest.Request) providertest.Reply {
			return providertest.Reply{Chunks: []string{"if isAdmin\u202e", " {\u2066 // check", "\u2069 ok\u200b", " \U000E0041done"}}
		})
	})
	id := f.createSession(map[string]any{"mode": "mention"})
	stream := f.events(id, "", "")
	f.must(202, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@chatgpt check \u202eme"})
	evs := stream.until(t, "exchange_finished")
	text, _ := streamText(t, evs)
	joined := ""
	for _, ev := range evs {
		if i := strings.IndexFunc(ev.data, sanitize.Invisible); i >= 0 {
			t.Fatalf("%s event carries an invisible control at byte %d: %q", ev.typ, i, ev.data)
		}
	}
	for _, s := range text {
		joined += s
	}
	if !strings.Contains(joined, "if isAdmin { // check ok done") {
		t.Fatalf("streamed text lost more than the controls: %q", joined)
	}
}
