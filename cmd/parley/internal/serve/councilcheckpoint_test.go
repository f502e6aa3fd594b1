package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// A council session created with a checkpoint policy waits for its host
// after the answers and after the rankings, through the same routes as
// MAGI's (no door knows the mode): status awaiting_host, POST …/checkpoint
// answers; the chairman cannot be dropped, and a stop after the rankings
// ends the council without the chairman, its outcome saying so.
func TestCouncilSessionCheckpointOverTheAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "council", "user_id": "ada", "checkpoint": "each_round"})
	base := "/api/v1/sessions/" + id
	stream := f.events(id, "0", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", base+"/messages?user_id=ada", map[string]string{"text": "Kafka or NATS?"})
	evs := stream.until(t, "checkpoint")
	var point struct {
		Kind, Sentence string
		Choices        []string
	}
	if err := json.Unmarshal([]byte(evs[len(evs)-1].data), &point); err != nil || point.Kind != "answers" ||
		point.Sentence != "CHECKPOINT after the answers: 3 of 3 members answered" || strings.Join(point.Choices, ",") != "continue,note,drop,stop" {
		t.Fatalf("checkpoint event %s (%v)", evs[len(evs)-1].data, err)
	}
	detail := f.must(200, "GET", base+"?user_id=ada", nil)
	if detail["status"] != "awaiting_host" || detail["checkpoint"].(map[string]any)["kind"] != "answers" {
		t.Fatalf("status %v, checkpoint %v", detail["status"], detail["checkpoint"])
	}
	msg := f.errorCode(http.StatusBadRequest, "bad_answer", "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "drop", "member": "chairman"})
	if !strings.Contains(msg, "the chairman cannot be dropped") {
		t.Errorf("dropping the chairman: %q", msg)
	}
	f.must(200, "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "note", "text": "We are a team of three."})
	evs = stream.until(t, "checkpoint")
	if err := json.Unmarshal([]byte(evs[len(evs)-1].data), &point); err != nil || point.Kind != "rankings" {
		t.Fatalf("second checkpoint %s (%v)", evs[len(evs)-1].data, err)
	}
	if detail = f.must(200, "GET", base+"?user_id=ada", nil); detail["status"] != "awaiting_host" {
		t.Fatalf("status at the rankings' checkpoint: %v", detail["status"])
	}
	f.must(200, "POST", base+"/checkpoint?user_id=ada", map[string]string{"action": "stop"})
	evs = stream.until(t, "council_decided")
	f.waitIdle(id)
	for _, ev := range evs {
		if ev.typ == "turn_started" && strings.Contains(ev.data, `"round":3`) {
			t.Errorf("the chairman was asked after a stop: %s", ev.data)
		}
	}
	detail = f.must(200, "GET", base+"?user_id=ada", nil)
	if detail["status"] != "idle" {
		t.Errorf("status after the stop: %v", detail["status"])
	}
	if note, outcome := noteAndOutcome(detail, "We are a team of three.", "outcome", "STOPPED by the host after the rankings: 3 of 3 answers"); !note || !outcome {
		t.Errorf("entries: the note saved %v, the stopped outcome %v:\n%v", note, outcome, detail["entries"])
	}
}
