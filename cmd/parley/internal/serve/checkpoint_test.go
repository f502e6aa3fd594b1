package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// A MAGI session created with a checkpoint policy waits for its host after
// each round (status awaiting_host, the checkpoint event on its stream);
// POST …/checkpoint answers it (a bad answer is refused and changes
// nothing). Waiting, it survives the server losing it (a restart): the
// session loaded again still awaits its host, and the answer goes on from
// the checkpoint: here stop, and the outcome says so.
func TestSessionCheckpointOverTheAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/sessions", map[string]any{"mode": "magi", "user_id": "ada", "checkpoint": "sometimes"})
	id := f.createSession(map[string]any{"mode": "magi", "user_id": "ada", "checkpoint": "each_round"})
	base := "/api/v1/sessions/" + id
	f.errorCode(http.StatusConflict, "not_waiting", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "continue"})
	stream := f.events(id, "0", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", base+"/messages?user_id=ada", map[string]string{"text": "Should we ship on Friday?"})
	evs := stream.until(t, "checkpoint")
	var point struct {
		Kind, Sentence string
		Round          int
		Choices        []string
	}
	if err := json.Unmarshal([]byte(evs[len(evs)-1].data), &point); err != nil || point.Kind != "round" || point.Round != 1 ||
		!strings.HasPrefix(point.Sentence, "CHECKPOINT after round 1 of 3: ") || strings.Join(point.Choices, ",") != "continue,note,drop,stop,swap" {
		t.Fatalf("checkpoint event %s (%v)", evs[len(evs)-1].data, err)
	}
	detail := f.must(200, "GET", base+"?user_id=ada", nil)
	if detail["status"] != "awaiting_host" || detail["checkpoint"].(map[string]any)["round"] != float64(1) {
		t.Fatalf("status %v, checkpoint %v", detail["status"], detail["checkpoint"])
	}
	f.errorCode(http.StatusBadRequest, "bad_answer", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "drop", "member": "nobody"})
	f.errorCode(http.StatusBadRequest, "bad_answer", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "approve"})
	f.errorCode(http.StatusBadRequest, "bad_answer", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "swap", "member": "casper", "with": "melchior"})
	f.errorCode(http.StatusBadRequest, "bad_answer", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "swap", "member": "casper", "with": "nobody"})
	f.must(200, "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "note", "text": "The budget was cut by half."})
	evs = stream.until(t, "checkpoint")
	var answered bool
	for _, ev := range evs {
		if ev.typ == "checkpoint_answered" && strings.Contains(ev.data, `"sentence":"the host added a note after round 1 of 3"`) {
			answered = true
		}
	}
	if !answered {
		t.Errorf("no checkpoint_answered event for the note among %d events", len(evs))
	}

	f.srv.sessions.closeAll() // the server loses the session while it waits (a restart)
	detail = f.must(200, "GET", base+"?user_id=ada", nil)
	if detail["status"] != "awaiting_host" || detail["checkpoint"].(map[string]any)["round"] != float64(2) {
		t.Fatalf("after a restart: status %v, checkpoint %v", detail["status"], detail["checkpoint"])
	}
	stream = f.events(id, "", "?user_id=ada")
	f.must(200, "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "stop"})
	stream.until(t, "magi_decided")
	f.waitIdle(id)
	detail = f.must(200, "GET", base+"?user_id=ada", nil)
	if detail["status"] != "idle" {
		t.Errorf("status after the stop: %v", detail["status"])
	}
	if note, outcome := noteAndOutcome(detail, "The budget was cut by half.", "verdict", "STOPPED by the host after round 2: "); !note || !outcome {
		t.Errorf("entries: the note saved %v, the stopped outcome %v:\n%v", note, outcome, detail["entries"])
	}
	f.errorCode(http.StatusConflict, "not_waiting", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "continue"})
}

// noteAndOutcome reports whether a session's entries hold the host's note
// (a user entry) and an entry of kind whose text begins with outcome.
func noteAndOutcome(detail map[string]any, note, kind, outcome string) (noted, outcomed bool) {
	for _, en := range detail["entries"].([]any) {
		e := en.(map[string]any)
		text, _ := e["text"].(string)
		noted = noted || e["kind"] == "user" && text == note
		outcomed = outcomed || e["kind"] == kind && strings.HasPrefix(text, outcome)
	}
	return noted, outcomed
}
