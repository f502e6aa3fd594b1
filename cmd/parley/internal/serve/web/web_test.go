package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"golang.org/x/net/html"
)

// fakeBackend serves fixed sessions.
type fakeBackend struct {
	sessions map[string]SessionView
	order    []string
}

func (f *fakeBackend) ListSessions(context.Context) ([]debate.SessionSummary, error) {
	var out []debate.SessionSummary
	for i, id := range f.order {
		info := f.sessions[id].Info
		out = append(out, debate.SessionSummary{SessionInfo: info, Turns: 4 + i, Tokens: 1500 + i, Cost: 0.0125,
			LastActivity: info.Created.Add(90 * time.Minute)})
	}
	return out, nil
}

func (f *fakeBackend) LoadSession(_ context.Context, id string) (SessionView, error) {
	sv, ok := f.sessions[id]
	if !ok {
		return SessionView{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return sv, nil
}

func (f *fakeBackend) add(sv SessionView) {
	if f.sessions == nil {
		f.sessions = map[string]SessionView{}
	}
	f.sessions[sv.Info.ID] = sv
	f.order = append(f.order, sv.Info.ID)
}

const hostile = "<script>alert(1)</script> and <img src=x onerror=alert(2)> [x](javascript:alert(3)) " + trojan

// trojan hides its order behind bidi controls (CVE-2021-42574): a page
// must show reversed, the characters in the order they were sent.
const trojan = "admin\u202e\u2066 // not\u2069\u2066 user\u200b"

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func entry(turn int, kind transcript.Kind, speaker, text string) transcript.Entry {
	return transcript.Entry{Turn: turn, Kind: kind, Speaker: speaker, Display: speaker, Mode: "mention",
		Text: text, Status: transcript.StatusComplete, Started: t0, Finished: t0}
}

// mentionSession has a hostile title, user line, note, answer, error and
// a turn still streaming.
func mentionSession() SessionView {
	reply := entry(2, transcript.KindReply, "gemini", "**bold** "+hostile)
	reply.Provider, reply.Model = "gemini", "gemini-3<b>"
	streaming := entry(4, transcript.KindReply, "chatgpt", hostile)
	streaming.Status = transcript.StatusStreaming
	failed := entry(5, transcript.KindReply, "chatgpt", "")
	failed.Status, failed.Error = transcript.StatusError, "401 <script>bad key</script>"
	return SessionView{
		Info: debate.SessionInfo{ID: "aaa111", Title: "t " + hostile, Mode: "mention", Created: t0},
		Entries: []transcript.Entry{
			entry(1, transcript.KindUser, "user", "@all "+hostile), reply,
			entry(3, transcript.KindNote, "user", hostile), streaming, failed,
		},
		Panels: []Panel{
			{Name: "gemini", Display: "Gemini <i>", Provider: "gemini", Model: "m", Color: `#4285F4" onmouseover="alert(4)`},
			{Name: "chatgpt", Display: "ChatGPT", Provider: "openai", Model: "gpt-5", Color: "#10A37F"},
		},
	}
}

func magiSession() SessionView {
	members := []Panel{
		{Name: "melchior", Display: "MELCHIOR", Role: "member"},
		{Name: "balthasar", Display: "BALTHASAR", Role: "member"},
		{Name: "casper", Display: "CASPER", Role: "member"},
	}
	es := []transcript.Entry{{Turn: 1, Kind: transcript.KindUser, Speaker: "user", Mode: "magi", Text: "ship on Friday? " + hostile, Status: transcript.StatusComplete}}
	votes := [][]string{{"approve", "reject", "reject"}, {"approve", "approve", "reject"}, {"approve", "approve", "reject"}}
	turn := 2
	for r, round := range votes {
		for i, v := range round {
			b := verdict.Ballot{Vote: verdict.Vote(v), Reasoning: "because " + hostile, Summary: "sum " + hostile}
			es = append(es, transcript.Entry{Turn: turn, Kind: transcript.KindVote, Speaker: members[i].Name, Display: members[i].Display,
				Mode: "magi", Round: r + 1, Vote: v, Text: b.JSON(), Status: transcript.StatusComplete})
			turn++
		}
	}
	es = append(es, transcript.Entry{Turn: turn, Kind: transcript.KindVerdict, Speaker: "system", Display: "MAGI", Mode: "magi",
		Round: 3, Vote: "APPROVED", Text: "APPROVED after round 3: 2 approve, 1 reject", Status: transcript.StatusComplete})
	return SessionView{Info: debate.SessionInfo{ID: "magi01", Title: "ship?", Mode: "magi", Created: t0}, Entries: es, Panels: members}
}

func newTestServer(t *testing.T) (*httptest.Server, *fakeBackend) {
	t.Helper()
	fb := &fakeBackend{}
	fb.add(mentionSession())
	fb.add(magiSession())
	for _, mi := range modes.All().Infos() {
		fb.add(SessionView{Info: debate.SessionInfo{ID: "mode-" + mi.Name, Mode: mi.Name, Created: t0}, Panels: []Panel{{Name: "a", Display: "A"}}})
	}
	srv := httptest.NewServer(New(fb, Options{Modes: modes.All()}))
	t.Cleanup(srv.Close)
	return srv, fb
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// assertInert parses page as a browser would and fails on any script
// element other than the page's own scripts (/static/*.js), any on* attribute,
// any javascript: URL and any style attribute (the CSP would block it,
// but it must not be there at all).
func assertInert(t *testing.T, page string) {
	t.Helper()
	if problem := inertProblem(page); problem != "" {
		t.Errorf("%s in:\n%s", problem, page)
	}
}

func inertProblem(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if tok.Data == "script" {
				src := ""
				for _, a := range tok.Attr {
					if a.Key == "src" {
						src = a.Val
					}
				}
				if src != "/static/app.js" && src != "/static/live.js" && src != "/static/boards.js" && src != "/static/checkpoint.js" {
					return fmt.Sprintf("script element %v", tok)
				}
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				val := strings.ToLower(strings.TrimSpace(a.Val))
				if strings.HasPrefix(key, "on") || key == "style" || key == "srcdoc" {
					return fmt.Sprintf("attribute %s=%q on <%s>", a.Key, a.Val, tok.Data)
				}
				if (key == "href" || key == "src" || key == "action" || key == "formaction") && strings.HasPrefix(val, "javascript:") {
					return fmt.Sprintf("javascript URL %q on <%s>", a.Val, tok.Data)
				}
			}
		}
	}
}

func TestPagesCarryCSPAndSecurityHeaders(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	for _, path := range []string{"/", "/s/aaa111", "/s/magi01", "/s/aaa111/entry/2", "/compare?a=aaa111&b=magi01", "/static/app.js", "/static/style.css", "/s/nope", "/nope"} {
		res, _ := get(t, srv.URL+path)
		if got := res.Header.Get("Content-Security-Policy"); got != CSP {
			t.Errorf("%s: CSP %q, want %q", path, got, CSP)
		}
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", path, got)
		}
	}
	if !strings.Contains(CSP, "script-src 'self';") || strings.Contains(CSP, "unsafe") {
		t.Errorf("CSP is not strict: %s", CSP)
	}
}

func TestHostileTextRendersInert(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	for _, path := range []string{"/", "/s/aaa111", "/s/magi01", "/s/aaa111/entry/2", "/s/aaa111/entry/4", "/s/aaa111/entry/5", "/compare?a=aaa111&b=magi01"} {
		res, body := get(t, srv.URL+path)
		if res.StatusCode != 200 {
			t.Fatalf("%s: status %d: %s", path, res.StatusCode, body)
		}
		assertInert(t, body)
		if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
			t.Errorf("%s: raw hostile markup in the page", path)
		}
		if i := strings.IndexFunc(body, sanitize.Invisible); i >= 0 {
			t.Errorf("%s: invisible format control %q at byte %d", path, body[i:i+3], i)
		}
	}
	// Text shown as text is escaped, so the reader sees what the model wrote.
	_, body := get(t, srv.URL+"/s/aaa111")
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "admin // not user", "Gemini &lt;i&gt;", "401 &lt;script&gt;bad key&lt;/script&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks escaped %q", want)
		}
	}
	// The finished answer is Markdown rendered: bold survives, script goes.
	_, frag := get(t, srv.URL+"/s/aaa111/entry/2")
	if !strings.Contains(frag, "<strong>bold</strong>") {
		t.Errorf("finished answer not rendered from Markdown:\n%s", frag)
	}
	if strings.Contains(frag, "alert(1)</script>") || strings.Contains(frag, "javascript:") {
		t.Errorf("finished answer kept a script or a javascript: link:\n%s", frag)
	}
	// The streaming turn is text, escaped, not Markdown.
	_, frag = get(t, srv.URL+"/s/aaa111/entry/4")
	if !strings.Contains(frag, `data-status="streaming"`) || !strings.Contains(frag, "&lt;script&gt;") || strings.Contains(frag, "<strong>") {
		t.Errorf("streaming turn not shown as text:\n%s", frag)
	}
}

func TestEveryModeRenders(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	for _, mi := range modes.All().Infos() {
		res, body := get(t, srv.URL+"/s/mode-"+mi.Name)
		if res.StatusCode != 200 {
			t.Fatalf("%s: status %d", mi.Name, res.StatusCode)
		}
		if !strings.Contains(body, `data-mode="`+mi.Name+`"`) || !strings.Contains(body, `id="transcript"`) || !strings.Contains(body, `id="say"`) {
			t.Errorf("%s: page lacks mode, transcript or input", mi.Name)
		}
		for _, k := range mi.Controls {
			if !strings.Contains(body, `data-kind="`+string(k)+`"`) {
				t.Errorf("%s: no %s control", mi.Name, k)
			}
		}
		if !strings.Contains(body, `<option value="`+mi.Name+`" selected>`) {
			t.Errorf("%s: the mode switch does not show the session's mode", mi.Name)
		}
		if got := strings.Contains(body, `class="vote-board"`); got != (mi.Name == "magi") {
			t.Errorf("%s: vote board shown = %v", mi.Name, got)
		}
	}
	_, body := get(t, srv.URL+"/")
	for _, mi := range modes.All().Infos() {
		if !strings.Contains(body, fmt.Sprintf(`<option value="%s" data-roles="%s" data-seats-min="%d">`, mi.Name, strings.Join(mi.Roles, ","), mi.Seats.Min)) {
			t.Errorf("sessions page: no %s in the mode picker", mi.Name)
		}
	}
}

// The forms' submit buttons are served disabled and enabled by app.js once
// it handles the submit: a click or Enter before the script ran would
// submit the form itself, as a GET that reloads the page with the fields,
// a message among them, in its address. (That the script enables them, the
// browser tests show: each clicks both.)
func TestSubmitButtonsWaitForTheScript(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	_, front := get(t, srv.URL+"/")
	_, session := get(t, srv.URL+"/s/mode-mention")
	for page, button := range map[string]string{
		front:   `<button type="submit" disabled>Create</button>`,
		session: `<button type="submit" id="send" disabled>Send</button>`,
	} {
		if !strings.Contains(page, button) {
			t.Errorf("the page does not serve %s", button)
		}
	}
}

func TestMagiBoard(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	_, body := get(t, srv.URL+"/s/magi01")
	for _, want := range []string{
		`<tr data-agent="balthasar"><th>BALTHASAR</th>`,
		`class="cell vote-reject" data-round="1"`,
		`class="cell vote-approve changed" data-round="2"`, // balthasar flipped
		`class="verdict decided verdict-APPROVED" data-verdict="APPROVED"`,
		"BALTHASAR: reject → approve (round 1 → 2) CONFORMITY", // "because …" says nothing new
	} {
		if !strings.Contains(body, want) {
			t.Errorf("board lacks %q", want)
		}
	}
	if n := strings.Count(body, "changed\""); n != 1 {
		t.Errorf("%d changed cells, want 1 (only BALTHASAR flipped)", n)
	}
}

func TestNotFoundAndBadRequests(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	for path, want := range map[string]int{
		"/s/nope": 404, "/s/aaa111/entry/99": 404, "/s/aaa111/entry/x": 400, "/s/aaa111/entry/0": 400,
		"/compare?a=aaa111": 400, "/compare?a=aaa111&b=nope": 404, "/static/nope.js": 404,
	} {
		if res, _ := get(t, srv.URL+path); res.StatusCode != want {
			t.Errorf("%s: status %d, want %d", path, res.StatusCode, want)
		}
	}
}

func TestCompareForks(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	parent := magiSession()
	fork := magiSession()
	fork.Info.ID, fork.Info.Parent, fork.Info.ForkAt = "fork01", parent.Info.ID, 1
	fork.Entries[len(fork.Entries)-1].Vote = "REJECTED"
	fork.Entries[len(fork.Entries)-1].Text = "REJECTED after round 3: 2 reject, 1 approve"
	fb.add(parent)
	fb.add(fork)
	srv := httptest.NewServer(New(fb, Options{Modes: modes.All()}))
	defer srv.Close()
	_, body := get(t, srv.URL+"/compare?a=magi01&b=fork01")
	for _, want := range []string{"Turn 1 is shared; below is what each side added after it.", "verdict-APPROVED", "verdict-REJECTED", "fork of <code>magi01</code> at turn 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("compare page lacks %q", want)
		}
	}
	if strings.Contains(body, `id="turn-1"`) {
		t.Error("the shared question is listed again on each side")
	}
}

// A fork that copied only a MAGI question and asked its own draws one
// board, for the question it voted on: the copied one had no votes.
func TestCompareDrawsNoBoardForACopiedQuestion(t *testing.T) {
	t.Parallel()
	fb := &fakeBackend{}
	parent := magiSession()
	fork := magiSession()
	fork.Info.ID, fork.Info.Parent, fork.Info.ForkAt = "fork02", parent.Info.ID, 1
	asked := fork.Entries[0]
	asked.Text = "ship on Monday instead?"
	for i := range fork.Entries {
		fork.Entries[i].Turn++
	}
	fork.Entries = append([]transcript.Entry{parent.Entries[0]}, append([]transcript.Entry{asked}, fork.Entries[1:]...)...)
	for i := range fork.Entries {
		fork.Entries[i].Turn = i + 1
	}
	fb.add(parent)
	fb.add(fork)
	srv := httptest.NewServer(New(fb, Options{Modes: modes.All()}))
	defer srv.Close()
	_, body := get(t, srv.URL+"/compare?a=magi01&b=fork02")
	if n := strings.Count(body, `class="board"`); n != 2 {
		t.Errorf("%d boards on the compare page, want one per side", n)
	}
	if !strings.Contains(body, "ship on Monday instead?") {
		t.Error("the fork's own question has no board")
	}
}

func TestStaticFilesHaveNoInlineHandlersOrEval(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	res, js := get(t, srv.URL+"/static/app.js")
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("app.js served as %q", ct)
	}
	for _, bad := range []string{"eval(", "new Function", "document.write", ".innerHTML +=", "insertAdjacentHTML", "setAttribute(\"style\""} {
		if strings.Contains(js, bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
}

func TestAgentColoursAreAStylesheet(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	res, css := get(t, srv.URL+"/s/aaa111/agents.css")
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("agents.css served as %q", ct)
	}
	if css != ".agent-1 { --agent: #10A37F; }\n" {
		t.Errorf("agents.css = %q: want only the valid colour, by panel position", css)
	}
	_, page := get(t, srv.URL+"/s/aaa111")
	if !strings.Contains(page, `<link rel="stylesheet" href="/s/aaa111/agents.css">`) {
		t.Error("the session page does not link its agents.css")
	}
}

func TestSpendLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    debate.SpendUpdated
		want string
	}{
		{debate.SpendUpdated{}, ""},
		{debate.SpendUpdated{SpentUSD: 0.0123}, "spent $0.0123"},
		{debate.SpendUpdated{SpentUSD: 0.0123, CapUSD: 0.5}, "spent $0.0123 of a $0.50 cap"},
		{debate.SpendUpdated{CapUSD: 0.035}, "spent $0.0000 of a $0.035 cap"},
		{debate.SpendUpdated{Unknown: true}, "spent $?"},
	} {
		if got := spendText(c.s); got != c.want {
			t.Errorf("spendText(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// The list says, for each session, its mode, last activity (not when it
// began), turns, tokens and cost.
func TestSessionListShowsActivityTurnsTokensCost(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	_, body := get(t, srv.URL+"/")
	for _, want := range []string{
		`<th>mode</th><th>last activity</th><th>turns</th><th>tokens</th><th>cost</th>`,
		`<td>mention</td><td><time datetime="2026-11-23T11:30:00Z">2026-11-23 11:30</time></td><td class="num">4</td><td class="num">1500</td><td class="num">$0.0125</td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("sessions page lacks %s:\n%s", want, body)
		}
	}
}
