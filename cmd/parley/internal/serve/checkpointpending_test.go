package serve

import (
	"net/http"
	"strings"
	"testing"
)

// A question sent while the session's run waits for its host is refused
// (409 awaiting_host) with the core's sentence naming the point and its
// choices, whether the host is being asked now or the point was saved by
// a server that lost the session; the run still waits there, and once the
// host has answered (stop) the next question is taken.
func TestQuestionWhileAwaitingHostIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "magi", "user_id": "ada", "checkpoint": "each_round"})
	base := "/api/v1/sessions/" + id
	stream := f.events(id, "0", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", base+"/messages?user_id=ada", map[string]string{"text": "Should we ship on Friday?"})
	stream.until(t, "checkpoint")
	const want = "the run waits for its host after round 1 of 3: answer that checkpoint first (continue, note, drop, stop, swap), then ask again (POST /api/v1/sessions/{id}/checkpoint)"
	for _, phase := range []string{"asked now", "saved"} {
		if phase == "saved" {
			f.srv.sessions.closeAll() // a restart: the point is saved, nobody is asked
		}
		for _, route := range []string{"/messages"} {
			if msg := f.errorCode(http.StatusConflict, "awaiting_host", "POST", base+route+"?user_id=ada", map[string]string{"text": "A new question?"}); msg != want {
				t.Errorf("%s, %s: %q\nwant %q", phase, route, msg, want)
			}
		}
		detail := f.must(200, "GET", base+"?user_id=ada", nil)
		if detail["status"] != "awaiting_host" || detail["checkpoint"].(map[string]any)["round"] != float64(1) {
			t.Fatalf("%s: the refused question moved the run: status %v, checkpoint %v", phase, detail["status"], detail["checkpoint"])
		}
	}
	stream = f.events(id, "", "?user_id=ada")
	f.must(200, "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "stop"})
	stream.until(t, "magi_decided")
	f.waitIdle(id)
	detail := f.must(200, "GET", base+"?user_id=ada", nil)
	for _, en := range detail["entries"].([]any) {
		if text, _ := en.(map[string]any)["text"].(string); strings.Contains(text, "A new question?") {
			t.Errorf("the refused question was kept: %v", en)
		}
	}
	f.must(http.StatusAccepted, "POST", base+"/messages?user_id=ada", map[string]string{"text": "And on Monday?"})
}

// POST …/checkpoint acts only on the caller's own session: another user's
// answer is refused as for a missing session (404) and changes nothing; an
// id that is not one, a body that is not an answer, a text over the bound
// and unknown fields are refused with a clear error; the owner's answer
// still goes through.
func TestCheckpointAnswerIsTheOwnersOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "magi", "user_id": "ada", "checkpoint": "each_round"})
	base := "/api/v1/sessions/" + id
	stream := f.events(id, "0", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", base+"/messages?user_id=ada", map[string]string{"text": "Should we ship on Friday?"})
	stream.until(t, "checkpoint")
	f.errorCode(http.StatusNotFound, "not_found", "POST", base+"/checkpoint?user_id=bob", map[string]string{"action": "stop"})
	f.errorCode(http.StatusNotFound, "not_found", "POST", base+"/checkpoint", map[string]string{"action": "stop"})
	f.errorCode(http.StatusBadRequest, "bad_answer", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "note", "text": strings.Repeat("x", 4001)})
	f.errorCode(http.StatusBadRequest, "bad_answer", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "<script>"})
	if code, body := f.do("POST", base+"/checkpoint?user_id=ada", map[string]any{"action": "stop", "evil": true}); code/100 != 4 {
		t.Errorf("an unknown field: %d %s", code, body)
	}
	if code, body := f.do("POST", "/api/v1/sessions/..%2F..%2Fetc/checkpoint?user_id=ada", map[string]string{"action": "stop"}); code/100 != 4 {
		t.Errorf("a hostile id: %d %s", code, body)
	}
	detail := f.must(200, "GET", base+"?user_id=ada", nil)
	if detail["status"] != "awaiting_host" {
		t.Fatalf("refused answers moved the run: status %v", detail["status"])
	}
	f.must(200, "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "stop"})
	stream.until(t, "magi_decided")
}
