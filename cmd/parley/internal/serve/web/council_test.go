package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
)

// councilSession is a finished council whose chairman failed: two members
// answered (one hostile), each ranked the other, and the record names
// the fallback.
func councilSession() SessionView {
	reply := func(turn, round int, speaker, display, text string) transcript.Entry {
		return transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: speaker, Display: display, Mode: "council",
			Round: round, Text: text, Status: transcript.StatusComplete}
	}
	rankA := reply(4, 2, "a", "Ann", "Ranking, best first: 1. Bob "+hostile+" (Response A)\n\nB is better")
	rankA.Prompt = "Council ranking (Response A = b): q?"
	rankB := reply(5, 2, "b", "Bob "+hostile, "Ranking, best first: 1. Ann (Response A)")
	rankB.Prompt = "Council ranking (Response A = a): q?"
	chair := reply(6, 3, "chairman", "Chairman", "")
	chair.Status, chair.Error = transcript.StatusError, "503 overloaded"
	failure := transcript.Entry{Turn: 7, Kind: transcript.KindError, Speaker: "system", Display: "Council", Mode: "council", Round: 3,
		Text: "The council's chairman failed: 503 overloaded.", Error: "503 overloaded", Status: transcript.StatusComplete}
	return SessionView{
		Info: debate.SessionInfo{ID: "council01", Mode: "council", Created: t0},
		Entries: []transcript.Entry{
			{Turn: 1, Kind: transcript.KindUser, Speaker: "user", Mode: "council", Text: "q?", Status: transcript.StatusComplete},
			reply(2, 1, "a", "Ann", "Ann's **answer**"), reply(3, 1, "b", "Bob "+hostile, "Bob's answer "+hostile),
			rankA, rankB, chair, failure,
		},
		Panels: []Panel{{Name: "a", Display: "Ann", Role: "member"}, {Name: "b", Display: "Bob " + hostile, Role: "member"},
			{Name: "chairman", Display: "Chairman", Role: "chairman"}},
	}
}

func TestCouncilPageAfterAReload(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	fb.add(councilSession())
	srv := httptest.NewServer(New(fb, Options{Modes: modes.All()}))
	defer srv.Close()
	_, body := get(t, srv.URL+"/s/council01")
	assertInert(t, body)
	answer, ranking, members := strings.Index(body, `class="council-title"`), strings.Index(body, `id="ranking"`), strings.Index(body, `id="panels"`)
	if !(answer >= 0 && answer < ranking && ranking < members) {
		t.Errorf("council answer at %d, ranking at %d, members at %d: want that order", answer, ranking, members)
	}
	// The members' panels hold their answers, not their rankings.
	panels := body[members:strings.Index(body, `class="transcript-wrap"`)]
	if strings.Contains(panels, "Ranking, best first") || !strings.Contains(panels, "<strong>answer</strong>") {
		t.Errorf("member panels:\n%s", panels)
	}
	for _, want := range []string{
		`<tr data-member="a" class="top-ranked"><th>Ann</th><td>—</td><td>1</td>`, // a tie keeps council order
		`<tr data-member="b"><th>Bob &lt;script&gt;`,                              // the hostile name as text
		`<td>—</td><td>1</td><td class="mean">1.00</td><td class="borda">0</td>`,
		`<li>Ann ranked: Bob &lt;script&gt;`,
		`The chairman failed: 503 overloaded. Shown instead, not the chairman's answer: the top-ranked answer, by Ann.`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the council page lacks %s", want)
		}
	}
	if strings.Contains(body, `id="fallback" class="fallback" hidden`) {
		t.Error("the fallback is hidden although the chairman failed")
	}
}

// A talk's MC panel says MC once; a role that is not the name stays.
func TestPanelRoleIsNotItsNameAgain(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	fb.add(SessionView{Info: debate.SessionInfo{ID: "talk01", Mode: "talk", Created: t0}, Panels: []Panel{
		{Name: "chatgpt", Display: "ChatGPT", Role: "guest A", Provider: "openai", Model: "gpt-5"},
		{Name: "mc", Display: "MC", Role: "MC", Provider: "anthropic", Model: "claude-sonnet-4-6"}}})
	srv := httptest.NewServer(New(fb, Options{Modes: modes.All()}))
	defer srv.Close()
	_, body := get(t, srv.URL+"/s/talk01")
	if strings.Contains(body, `<span class="role">MC</span>`) || !strings.Contains(body, `<span class="panel-name">MC</span> <span class="model">anthropic/claude-sonnet-4-6</span>`) {
		t.Error("the MC panel repeats its name as its role")
	}
	if !strings.Contains(body, `<span class="role">guest A</span>`) {
		t.Error("a guest's role is gone")
	}
}
