package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers/providertest"
)

// Fork copies a settled session up to a turn into a new session of the
// same user; a busy session and a turn it does not have are refused.
func TestForkSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "mention", "user_id": "ada"})
	stream := f.events(id, "", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@all kafka or nats?"})
	stream.until(t, "exchange_finished")
	f.waitIdle(id)

	out := f.must(http.StatusCreated, "POST", "/api/v1/sessions/"+id+"/fork?user_id=ada", map[string]int{"at": 2})
	fork := out["session"].(map[string]any)
	forkID := fork["id"].(string)
	if fork["parent"] != id || fork["fork_at"].(float64) != 2 || forkID == id {
		t.Fatalf("fork %v", fork)
	}
	detail := f.must(200, "GET", "/api/v1/sessions/"+forkID+"?user_id=ada", nil)
	if n := len(detail["entries"].([]any)); n != 2 {
		t.Errorf("the fork holds %d entries, want turns 1 and 2", n)
	}
	f.errorCode(404, "not_found", "GET", "/api/v1/sessions/"+forkID+"?user_id=bob", nil)
	f.errorCode(404, "not_found", "POST", "/api/v1/sessions/"+id+"/fork?user_id=bob", map[string]int{"at": 1})
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions/"+id+"/fork?user_id=ada", map[string]int{"at": 99})
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions/"+id+"/fork?user_id=ada", map[string]int{"at": -1})
	whole := f.must(http.StatusCreated, "POST", "/api/v1/sessions/"+id+"/fork?user_id=ada", map[string]any{})
	if whole["session"].(map[string]any)["fork_at"].(float64) != 3 {
		t.Errorf("a fork without at copies the whole session: %v", whole)
	}
}

func TestForkRefusedWhileBusy(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	f := newFixture(t, func(o *Options) {
		o.Agents = fakeAgents(t, func(providertest.Request) providertest.Reply {
			<-release
			return providertest.Reply{Text: "late"}
		})
	})
	defer close(release)
	id := f.createSession(map[string]any{"mode": "mention", "user_id": "ada"})
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@all hi"})
	msg := f.errorCode(409, "busy", "POST", "/api/v1/sessions/"+id+"/fork?user_id=ada", map[string]int{"at": 1})
	if !strings.Contains(msg, "exchange_finished") {
		t.Errorf("busy message %q does not say what it waits for", msg)
	}
}

// A session read mid-stream holds the text streamed so far, and its
// last_event_id is where that text ends: the deltas after it continue the
// text exactly, none repeated, none lost.
func TestSessionMidStreamHoldsTheTextSoFar(t *testing.T) {
	t.Parallel()
	words := strings.Fields("First sentence here. Then a second sentence follows, and a third one ends it.")
	f := newFixture(t, func(o *Options) {
		o.Agents = fakeAgents(t, func(providertest.Request) providertest.Reply {
			return providertest.Reply{Text: strings.Join(words, " "), ChunkDelay: 30 * time.Millisecond}
		})
	})
	id := f.createSession(map[string]any{"mode": "mention", "user_id": "ada"})
	stream := f.events(id, "", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@gemini go"})
	// Wait for some text, then read the session mid-stream.
	var full strings.Builder
	for full.Len() < len("First sentence") {
		ev := stream.next(t)
		if ev.typ == "text_delta" {
			var d struct{ Text string }
			_ = json.Unmarshal([]byte(ev.data), &d)
			full.WriteString(d.Text)
		}
	}
	detail := f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	var soFar string
	for _, e := range detail["entries"].([]any) {
		if en := e.(map[string]any); en["status"] == "streaming" {
			soFar = en["text"].(string)
		}
	}
	if !strings.HasPrefix(soFar, "First sentence") {
		t.Fatalf("mid-stream the streaming entry holds %q", soFar)
	}
	after := f.events(id, "", "?user_id=ada&after="+jsonNumber(detail["last_event_id"]))
	rest := ""
	for _, ev := range after.until(t, "turn_finished") {
		if ev.typ == "text_delta" {
			var d struct{ Text string }
			_ = json.Unmarshal([]byte(ev.data), &d)
			rest += d.Text
		}
	}
	if got, want := soFar+rest, strings.Join(words, " "); got != want {
		t.Errorf("text so far + the stream after it = %q, want %q", got, want)
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A line the mode refuses before adding anything is a 400 with the mode's
// reason, and the history stays as it was.
func TestMessageRefusedByTheMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "mention", "user_id": "ada"})
	msg := f.errorCode(400, "refused", "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@bob please keep this long message I typed"})
	if !strings.Contains(msg, "bob") {
		t.Errorf("refusal %q does not name the unknown agent", msg)
	}
	f.waitIdle(id)
	detail := f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	if n := len(detail["entries"].([]any)); n != 0 {
		t.Errorf("a refused line left %d entries", n)
	}
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@gemini hi"})
}
