package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
)

// streamText adds up each turn's text deltas, and lists the other events.
func streamText(t *testing.T, evs []sseEvent) (map[int]string, []string) {
	t.Helper()
	text := map[int]string{}
	var others []string
	for _, ev := range evs {
		if ev.typ == "text_delta" {
			var d debate.TextDelta
			if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
				t.Fatal(err)
			}
			text[d.Turn] += d.Text
			continue
		}
		others = append(others, fmt.Sprintf("%d %s", ev.id, ev.data))
	}
	return text, others
}

// A client that reconnects with Last-Event-ID gets exactly what came after
// that event: the same events with the same ids, the same text (deltas may
// arrive merged).
func TestSSEResumeWithLastEventID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "mention"})
	first := f.events(id, "", "")
	f.must(202, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@all what is a monad?"})
	all := first.until(t, "exchange_finished")
	first.close()
	if len(all) < 6 {
		t.Fatalf("only %d events", len(all))
	}
	// Resume after the first turn_started: everything from there on again.
	cut := 0
	for i, ev := range all {
		if ev.typ == "turn_started" {
			cut = i
			break
		}
	}
	resumed := f.events(id, strconv.FormatUint(all[cut].id, 10), "").until(t, "exchange_finished")
	wantText, wantOthers := streamText(t, all[cut+1:])
	gotText, gotOthers := streamText(t, resumed)
	if fmt.Sprint(gotOthers) != fmt.Sprint(wantOthers) {
		t.Errorf("resumed events differ:\n got %v\nwant %v", gotOthers, wantOthers)
	}
	if fmt.Sprint(gotText) != fmt.Sprint(wantText) {
		t.Errorf("resumed text differs:\n got %v\nwant %v", gotText, wantText)
	}
	if resumed[0].id <= all[cut].id {
		t.Errorf("first resumed id %d is not after %d", resumed[0].id, all[cut].id)
	}
	// ?after= does the same for a first connection (EventSource sends no header).
	again := f.events(id, "", "?after="+strconv.FormatUint(all[cut].id, 10)).until(t, "exchange_finished")
	if _, others := streamText(t, again); fmt.Sprint(others) != fmt.Sprint(wantOthers) {
		t.Errorf("?after= events differ")
	}
	code, _ := f.do("GET", "/api/v1/sessions/"+id+"/events", nil, "Last-Event-ID", "x")
	if code != 400 {
		t.Errorf("bad Last-Event-ID: status %d", code)
	}
}

// A client further behind than the replay buffer is told to reload.
func TestSSEResetPastTheBuffer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.ReplayEvents = 16 })
	id := f.createSession(map[string]any{"mode": "mention"})
	f.must(202, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@all what is a monad?"})
	f.waitIdle(id)
	f.srv.sessions.mu.Lock()
	ss := f.srv.sessions.live[id]
	f.srv.sessions.mu.Unlock()
	for i := range 40 {
		ss.eng.Emit(debate.ErrorOccurred{Err: strconv.Itoa(i)})
	}
	f.waitIdle(id)
	s := f.events(id, "1", "")
	ev := s.next(t)
	if ev.typ != "reset" || !strings.Contains(ev.data, `"lost":`) {
		t.Fatalf("first event %+v, want a reset", ev)
	}
	if next := s.next(t); next.id == 0 {
		t.Errorf("after the reset: %+v", next)
	}
	// An id this session never gave (the server restarted): reset, then
	// the events that come next.
	s = f.events(id, "999999", "")
	if ev := s.next(t); ev.typ != "reset" {
		t.Fatalf("unknown id: first event %+v, want a reset", ev)
	}
	ss.eng.Emit(debate.ErrorOccurred{Err: "after"})
	if ev := s.next(t); ev.typ != "error" || !strings.Contains(ev.data, `"after"`) {
		t.Errorf("after the reset: %+v", ev)
	}
}

// The hub merges a lagging client's deltas of one turn and never holds the
// engine: events emitted with no reader at all are all kept in order.
func TestHubCoalescesForLaggingClient(t *testing.T) {
	t.Parallel()
	h := newHub(64, 1<<20)
	for i := range 10 {
		h.sink(debate.TextDelta{Turn: 3, Agent: "gemini", Text: strconv.Itoa(i)})
	}
	h.sink(debate.TurnFinished{Entry: transcript.Entry{Turn: 3}})
	batch, _, reset, lost := h.since(0, 100)
	if reset || lost != 0 || len(batch) != 11 {
		t.Fatalf("batch %d, lost %d", len(batch), lost)
	}
	merged := coalesce(batch)
	if len(merged) != 2 || merged[0].seq != 10 || merged[0].delta.Text != "0123456789" || merged[1].typ != "turn_finished" {
		t.Fatalf("merged: %+v", merged)
	}
}

// A structured answer's deltas merge as a subscriber merges them: one
// delta per field, the raw answer kept whole (a third-party SSE client
// rebuilds the same vote as the console).
func TestHubCoalescesStructuredDeltasPerField(t *testing.T) {
	h := newHub(64, 1<<20)
	for _, d := range []debate.TextDelta{
		{Turn: 2, Agent: "melchior", Field: "reasoning", Text: "The data", Raw: `{"vote":"approve","reasoning":"The data`},
		{Turn: 2, Agent: "melchior", Field: "reasoning", Text: " holds.", Raw: ` holds.",`},
		{Turn: 2, Agent: "melchior", Raw: `"summary":"`},
		{Turn: 2, Agent: "melchior", Field: "summary", Text: "\n\nShip it.", Raw: `Ship it."}`},
		{Turn: 3, Agent: "casper", Field: "reasoning", Text: "No.", Raw: `{"reasoning":"No."}`},
	} {
		h.sink(d)
	}
	batch, _, _, _ := h.since(0, 100)
	merged := coalesce(batch)
	want := []debate.TextDelta{
		{Turn: 2, Agent: "melchior", Field: "reasoning", Text: "The data holds.", Raw: `{"vote":"approve","reasoning":"The data holds.","summary":"`},
		{Turn: 2, Agent: "melchior", Field: "summary", Text: "\n\nShip it.", Raw: `Ship it."}`},
		{Turn: 3, Agent: "casper", Field: "reasoning", Text: "No.", Raw: `{"reasoning":"No."}`},
	}
	if len(merged) != len(want) {
		t.Fatalf("merged into %d deltas, want %d: %+v", len(merged), len(want), merged)
	}
	for i, w := range want {
		if *merged[i].delta != w {
			t.Errorf("delta %d: %+v, want %+v", i, *merged[i].delta, w)
		}
		var onWire debate.TextDelta
		if err := json.Unmarshal(merged[i].data, &onWire); err != nil || onWire != w {
			t.Errorf("delta %d on the wire: %s (%v)", i, merged[i].data, err)
		}
	}
}

// Shutdown (SIGTERM, Ctrl+C: the context ends) cancels a running answer,
// keeps what arrived, and leaves it saved. The first line printed names
// the address.
func TestShutdownKeepsPartialText(t *testing.T) {
	t.Parallel()
	streaming := make(chan struct{})
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"partial answer"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		close(streaming)
		<-r.Context().Done() // the rest never comes
	}))
	defer provider.Close()
	f := newFixture(t, func(o *Options) { o.Agents = openAIAt(provider.URL + "/v1") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ctx, ln, pw); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if !regexp.MustCompile(`^listening on http://127\.0\.0\.1:\d+\n$`).MatchString(line) {
		t.Fatalf("first line %q", line)
	}
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	resp, err := http.Post(base+"/api/v1/sessions", "application/json", strings.NewReader(`{"mode":"mention"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Session debate.SessionInfo }
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	id := created.Session.ID
	resp, err = http.Post(base+"/api/v1/sessions/"+id+"/messages", "application/json", strings.NewReader(`{"text":"@gemini tell me everything"}`))
	if err != nil || resp.StatusCode != 202 {
		t.Fatalf("post: %v %v", resp, err)
	}
	resp.Body.Close()
	<-streaming
	// Wait for the text to be in the engine before stopping.
	f.srv.sessions.mu.Lock()
	ss := f.srv.sessions.live[id]
	f.srv.sessions.mu.Unlock()
	deadline := time.After(streamDeadline)
	for {
		batch, changed, _, _ := ss.hub.since(0, 1000)
		if strings.Contains(fmt.Sprint(batchTypes(batch)), "text_delta") {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no text_delta within %v", streamDeadline)
		}
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(streamDeadline):
		t.Fatalf("the server did not shut down within %v", streamDeadline)
	}
	if err := f.st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(f.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, entries, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	last := entries[len(entries)-1]
	if last.Text != "partial answer" || last.Status != transcript.StatusCancelled {
		t.Fatalf("saved turn: %q, status %s (want the partial text, cancelled)", last.Text, last.Status)
	}
}

func batchTypes(batch []record) []string {
	var out []string
	for _, r := range batch {
		out = append(out, r.typ)
	}
	return out
}

func newJar() http.CookieJar {
	jar, _ := cookiejar.New(nil)
	return jar
}

// A client that stops reading never holds the debate or another client:
// the engine drains at once while 16 MB of events pile up behind a reader
// that reads nothing, and a second client gets every event.
func TestSlowSSEClientNeverHoldsTheDebate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.ReplayEvents, o.ReplayBytes = 8192, 64<<20 })
	id := f.createSession(map[string]any{"mode": "mention"})
	stalled, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	fmt.Fprintf(stalled, "GET /api/v1/sessions/%s/events HTTP/1.1\r\nHost: localhost\r\n\r\n", id)
	// Its handler is subscribed once it has answered the headers.
	_ = stalled.SetReadDeadline(time.Now().Add(streamDeadline))
	if _, err := bufio.NewReader(stalled).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	reader := f.events(id, "", "")
	f.srv.sessions.mu.Lock()
	ss := f.srv.sessions.live[id]
	f.srv.sessions.mu.Unlock()
	big := strings.Repeat("x", 4096)
	const n = 4000
	for i := range n {
		ss.eng.Emit(debate.ErrorOccurred{Err: big, Turn: i + 1})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ss.eng.Wait(ctx); err != nil {
		t.Fatalf("the engine waited on a stalled client: %v", err)
	}
	// A stream opened with no cursor may begin with what the session
	// said before (its session_started, in the hub's replay): then the
	// errors, every one in order.
	ev := reader.next(t)
	for ev.typ != "error" {
		ev = reader.next(t)
	}
	for i := range n {
		if i > 0 {
			ev = reader.next(t)
		}
		if ev.typ != "error" || !strings.Contains(ev.data, fmt.Sprintf(`"turn":%d,`, i+1)) {
			t.Fatalf("event %d: %s %.80s", i, ev.typ, ev.data)
		}
	}
}
