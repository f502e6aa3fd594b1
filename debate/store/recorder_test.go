package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// testEngine builds an engine with three offline agents (a, b, c), all of
// them answering @all.
func testEngine(t testing.TB, pace time.Duration) *debate.Engine {
	t.Helper()
	cfg := &config.Config{DefaultMode: "mention", Source: "test", ModeList: modes.All()}
	var agents []*debate.Agent
	for _, n := range []string{"a", "b", "c"} {
		spec := config.AgentSpec{Name: n, Display: strings.ToUpper(n), Provider: "demo", Model: "demo-" + n}
		cfg.Agents = append(cfg.Agents, spec)
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", pace)})
	}
	cfg.Modes.Mention.Agents = []string{"a", "b", "c"}
	e, err := debate.NewEngine(cfg, agents, "mention")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// normalise makes entries comparable after a trip through the database:
// times in UTC without a monotonic reading.
func normalise(entries []transcript.Entry) []transcript.Entry {
	out := make([]transcript.Entry, len(entries))
	for i, en := range entries {
		en.Started, en.Finished = en.Started.UTC().Round(0), en.Finished.UTC().Round(0)
		out[i] = en
	}
	return out
}

func TestResumeRoundTrip(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e := testEngine(t, 0)
	rec := st.Record()
	e.Subscribe(rec.Sink)
	e.Start(false)
	e.SetState("alternate.next", "b")
	for _, line := range []string{"@all first question\nwith a second line", "just a note", "@b follow up"} {
		if err := e.Submit(ctx, line); err != nil {
			t.Fatal(err)
		}
	}
	// Every kind the modes produce, tool calls and an error included.
	started := time.Now()
	e.AddEntry(transcript.Entry{Kind: transcript.KindToolCall, Speaker: "c", Text: "<read_file><path>go.mod</path></read_file>",
		ToolCalls: []transcript.ToolCall{{Tool: "read_file", Parameters: map[string]string{"path": "go.mod"}, Result: "module x\n"},
			{Tool: "list_file", Parameters: map[string]string{}, Error: "outside the workspace"}}})
	e.AddEntry(transcript.Entry{Kind: transcript.KindVote, Speaker: "a", Round: 2, Vote: "approve", Text: `{"vote":"approve"}`,
		Usage: providers.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 3}, Cost: 0.0125, Started: started, Finished: started.Add(1500 * time.Millisecond)})
	e.AddEntry(transcript.Entry{Kind: transcript.KindVerdict, Speaker: transcript.SpeakerSystem, Round: 3, Vote: "APPROVED"})
	e.AddEntry(transcript.Entry{Kind: transcript.KindError, Speaker: "b", Status: transcript.StatusError, Error: "401 unauthorized"})
	e.AddEntry(transcript.Entry{Kind: transcript.KindModerator, Speaker: "c", IsModerator: true, Text: "Let us close."})
	// What a model sends is kept byte for byte, however odd.
	e.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "nul\x00, \xff\xfe, \x1b[31mred, 漢字 🎉"})
	if err := e.SetMode("magi"); err == nil {
		t.Log("magi mode is registered in this build")
	}
	settle(t, e)
	want := e.History().Entries()
	wantInfo := e.Info()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	id, err := st2.Latest(ctx)
	if err != nil || id != wantInfo.ID {
		t.Fatalf("latest = %q, %v; want %q", id, err, wantInfo.ID)
	}
	info, got, err := st2.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalise(got), normalise(want)) {
		for i := range max(len(got), len(want)) {
			var g, w transcript.Entry
			if i < len(got) {
				g = normalise(got)[i]
			}
			if i < len(want) {
				w = normalise(want)[i]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("entry %d:\n got %+v\nwant %+v", i+1, g, w)
			}
		}
		t.FailNow()
	}
	wantInfo.Created = wantInfo.Created.UTC().Round(0)
	if !reflect.DeepEqual(info, wantInfo) {
		t.Fatalf("info:\n got %+v\nwant %+v", info, wantInfo)
	}
	if info.Title != "mention · @all first question" || info.State["alternate.next"] != "b" {
		t.Errorf("title/state not kept: %+v", info)
	}

	// The engine continues from the restored history: new turns number on.
	e2 := testEngine(t, 0)
	if err := e2.Restore(info, got); err != nil {
		t.Fatal(err)
	}
	rec2 := st2.Record()
	e2.Subscribe(rec2.Sink)
	e2.Start(true)
	if err := e2.Submit(ctx, "@a and again"); err != nil {
		t.Fatal(err)
	}
	settle(t, e2)
	if err := rec2.Flush(); err != nil {
		t.Fatal(err)
	}
	_, again, err := st2.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(want)+2 || !reflect.DeepEqual(normalise(again[:len(want)]), normalise(want)) {
		t.Fatalf("after resuming: %d entries, want %d (old ones unchanged)", len(again), len(want)+2)
	}
	if last := again[len(again)-1]; last.Turn != len(want)+2 || last.Speaker != "a" || last.Status != transcript.StatusComplete || last.Text == "" {
		t.Errorf("new turn = %+v", last)
	}
	list, err := st2.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list = %v, %v", list, err)
	}
	if s := list[0]; s.Turns != len(again) || !reflect.DeepEqual(s.Agents, []string{"a", "b", "c"}) || s.TokensOut == 0 || s.Cost != 0.0125 {
		t.Errorf("summary = %+v", s)
	}
}

// A streaming answer is checkpointed on a timer, not per delta, and what
// arrived is readable from another connection before the turn ends.
func TestStreamingTextIsCheckpointed(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	rec := st.RecordEvery(50 * time.Millisecond)
	info := debate.SessionInfo{ID: "s1", Mode: "mention", Created: time.Now()}
	rec.Sink(debate.SessionStarted{Session: info})
	en := transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: "a", Display: "A", Model: "m", Mode: "mention",
		Status: transcript.StatusStreaming, Started: time.Now()}
	rec.Sink(debate.TurnStarted{Entry: en})
	var want strings.Builder
	for i := range 2000 {
		d := string(rune('a'+i%26)) + " "
		want.WriteString(d)
		rec.Sink(debate.TextDelta{Turn: 1, Agent: "a", Text: d})
	}
	waitFor(t, func() bool {
		_, got, err := st.Load(ctx, "s1")
		return err == nil && len(got) == 1 && got[0].Text == want.String()
	})
	_, got, _ := st.Load(ctx, "s1")
	if got[0].Status != transcript.StatusPartial || got[0].Error != Interrupted {
		t.Errorf("a turn read while streaming comes back as interrupted: %+v", got[0])
	}
	en.Text, en.Status, en.Finished = "final text", transcript.StatusComplete, time.Now()
	rec.Sink(debate.TurnFinished{Entry: en})
	rec.Sink(debate.TextDelta{Turn: 1, Agent: "a", Text: "late"}) // ignored: the turn is over
	// Two more checkpoints, as the timer takes them: nothing may overwrite
	// the final text.
	for range 3 {
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	_, got, _ = st.Load(ctx, "s1")
	if got[0].Text != "final text" || got[0].Status != transcript.StatusComplete {
		t.Errorf("after finish: %+v", got[0])
	}
}

// waitFor waits until ok holds (it reads what another goroutine writes on
// its own timer, which announces nothing), checking every 5 ms for a minute.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !ok() {
		select {
		case <-deadline:
			t.Fatal("condition not met within 10s")
		case <-poll.C:
		}
	}
}

// settle waits until e runs no exchange and its subscribers (the
// recorder's Sink) have received every event so far; a Flush after it
// writes the whole session.
func settle(t testing.TB, e *debate.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// Three agents streaming and finishing at once: every turn lands complete,
// in configuration order, with its whole text.
func TestThreeAgentsFinishingAtOnceAllLand(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	e := testEngine(t, time.Millisecond)
	rec := st.RecordEvery(5 * time.Millisecond) // checkpoints race the finishes
	e.Subscribe(rec.Sink)
	e.Start(false)
	for range 3 {
		if err := e.Submit(ctx, "@all go"); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, e)
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	_, got, err := st.Load(ctx, e.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	want := e.History().Entries()
	if len(got) != 12 || !reflect.DeepEqual(normalise(got), normalise(want)) {
		t.Fatalf("stored %d entries, want 12 equal to the history", len(got))
	}
	for _, en := range got {
		if en.Kind == transcript.KindReply && (en.Status != transcript.StatusComplete || en.Text == "") {
			t.Errorf("turn %d: %s %q", en.Turn, en.Status, en.Text)
		}
	}
}

func TestEmptySessionLeavesNoRow(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	e := testEngine(t, 0)
	rec := st.Record()
	e.Subscribe(rec.Sink)
	e.Start(false)
	e.SetTitle("never asked", "")
	settle(t, e)
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if list, _ := st.List(context.Background()); len(list) != 0 {
		t.Fatalf("an empty session was saved: %+v", list)
	}
	e.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "hello"})
	settle(t, e)
	_ = rec.Flush()
	list, _ := st.List(context.Background())
	if len(list) != 1 || list[0].Title != "mention · never asked" {
		t.Fatalf("list = %+v", list)
	}
}

// A session resumed after a crash settles the turn left streaming in the
// database too, so it no longer looks in flight to any reader.
func TestResumeSettlesInterruptedTurns(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	rec := st.Record()
	info := debate.SessionInfo{ID: "crashed", Mode: "mention", Created: time.Now(), State: map[string]string{}}
	rec.Sink(debate.SessionStarted{Session: info})
	rec.Sink(debate.TurnStarted{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: "a", Status: transcript.StatusStreaming}})
	rec.Sink(debate.TurnStarted{Entry: transcript.Entry{Turn: 2, Kind: transcript.KindReply, Speaker: "b", Status: transcript.StatusStreaming}})
	rec.Sink(debate.TextDelta{Turn: 1, Text: "half an ans"})
	_ = rec.Flush()
	_ = rec.Close() // as if killed: the turns never finish

	info2, entries, err := st.Load(ctx, "crashed")
	if err != nil || entries[0].Status != transcript.StatusPartial || entries[1].Status != transcript.StatusError {
		t.Fatalf("load: %v %+v", err, entries)
	}
	rec2 := st.Record()
	rec2.Sink(debate.SessionStarted{Session: info2, Resumed: true})
	_ = rec2.Flush()
	var streaming int
	if err := st.r.QueryRow(`SELECT COUNT(*) FROM conversation_log WHERE status = 'streaming'`).Scan(&streaming); err != nil || streaming != 0 {
		t.Fatalf("%d rows still streaming (%v)", streaming, err)
	}
	_, again, _ := st.Load(ctx, "crashed")
	if !reflect.DeepEqual(again, entries) {
		t.Errorf("settled rows differ from what Load reported:\n%+v\n%+v", again, entries)
	}
}

func TestDeleteAndFork(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	e := testEngine(t, 0)
	rec := st.Record()
	e.Subscribe(rec.Sink)
	e.Start(false)
	e.SetState("alternate.next", "a")
	for _, q := range []string{"@a one", "@b two", "@c three"} {
		if err := e.Submit(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, e)
	_ = rec.Flush()
	parent := e.Info().ID
	if _, err := st.Fork(ctx, parent, 7); err == nil {
		t.Error("fork past the last turn accepted")
	}
	if all, err := st.Fork(ctx, parent, 0); err != nil || all.ForkAt != 6 {
		t.Errorf("fork at turn 0 copies the whole session: fork_at %d, %v", all.ForkAt, err)
	} else if err := st.Delete(ctx, all.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Fork(ctx, "nope", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork of unknown session: %v", err)
	}
	fork, err := st.Fork(ctx, parent, 4)
	if err != nil {
		t.Fatal(err)
	}
	info, entries, err := st.Load(ctx, fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Parent != parent || info.ForkAt != 4 || info.Mode != "mention" || info.ID == parent {
		t.Errorf("fork info = %+v", info)
	}
	// Where the parent ended is not where the fork starts: alternate's
	// position is worked out again from the fork's own history.
	if next, kept := info.State["alternate.next"]; kept {
		t.Errorf("fork kept the parent's final alternate.next %q", next)
	}
	if !reflect.DeepEqual(normalise(entries), normalise(e.History().Entries()[:4])) {
		t.Errorf("fork entries differ from the parent's first four")
	}
	// The fork continues on its own; the parent is untouched.
	e2 := testEngine(t, 0)
	if err := e2.Restore(info, entries); err != nil {
		t.Fatal(err)
	}
	rec2 := st.Record()
	e2.Subscribe(rec2.Sink)
	e2.Start(true)
	if err := e2.Submit(ctx, "@c other branch"); err != nil {
		t.Fatal(err)
	}
	settle(t, e2)
	_ = rec2.Flush()
	_, forkEntries, _ := st.Load(ctx, fork.ID)
	_, parentEntries, _ := st.Load(ctx, parent)
	if len(forkEntries) != 6 || forkEntries[4].Text != "@c other branch" || len(parentEntries) != 6 || parentEntries[4].Text != "@c three" {
		t.Errorf("fork %d entries, parent %d", len(forkEntries), len(parentEntries))
	}
	list, _ := st.List(ctx)
	if len(list) != 2 || list[0].ID != fork.ID || list[0].Parent != parent {
		t.Errorf("list after fork = %+v", list)
	}

	if err := st.Delete(ctx, parent); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Load(ctx, parent); !errors.Is(err, ErrNotFound) {
		t.Errorf("load after delete: %v", err)
	}
	if err := st.Delete(ctx, parent); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	var orphans int
	_ = st.r.QueryRow(`SELECT COUNT(*) FROM conversation_log WHERE conversation_id = ?`, parent).Scan(&orphans)
	if orphans != 0 {
		t.Errorf("%d log rows left after delete", orphans)
	}
	if _, f, err := st.Load(ctx, fork.ID); err != nil || len(f) != 6 {
		t.Errorf("the fork went with its parent: %v", err)
	}
}

// The recorder reports a failed write instead of losing it silently.
func TestWriteErrorIsReported(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	rec := st.Record()
	got := make(chan error, 1)
	rec.OnError(func(err error) { got <- err })
	if _, err := st.w.Exec(`DROP TABLE conversation_log`); err != nil {
		t.Fatal(err)
	}
	rec.Sink(debate.SessionStarted{Session: debate.SessionInfo{ID: "x", Mode: "mention"}})
	rec.Sink(debate.EntryAdded{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindNote, Speaker: "user", Status: transcript.StatusComplete}})
	if err := rec.Flush(); err == nil {
		t.Fatal("flush after a failed write reported no error")
	}
	select {
	case err := <-got:
		if err == nil {
			t.Fatal("nil error reported")
		}
	case <-time.After(time.Minute):
		t.Fatal("OnError not called")
	}
	if err := rec.Close(); err == nil {
		t.Error("Close hides the write error")
	}
}

// TalkTable's participant columns hold the display names the seed stores.
func TestParticipantColumnsHoldDisplayNames(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	e := testEngine(t, 0)
	rec := st.Record()
	e.Subscribe(rec.Sink)
	e.Start(false)
	for _, line := range []string{"@a first", "@b second", "@a third"} {
		if err := e.Submit(ctx, line); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, e)
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	var a, b string
	if err := st.r.QueryRowContext(ctx, `SELECT participant_a_name, participant_b_name FROM conversation_meta WHERE conversation_id = ?`,
		e.Info().ID).Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	if a != "A" || b != "B" {
		t.Fatalf("participants %q and %q, want the display names A and B", a, b)
	}
}

// A database whose participant columns hold agent keys gets display names
// when it is opened.
func TestMigrationStoresParticipantDisplayNames(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v2.db")
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := db.Exec(`CREATE TABLE schema_version (version INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, db, migrations, 2); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO conversation_meta (conversation_id, topic, participant_a_name, participant_b_name, moderator_name, mode)
			VALUES ('t1', 'tea?', 'chatgpt', 'gemini', 'mc', 'talk'), ('t2', 'x', 'ghost', '', '', 'talk');
		INSERT INTO conversation_log (conversation_id, turn_number, speaker_name, display_name, kind, is_moderator)
			VALUES ('t1', 1, 'mc', 'MC', 'moderator', 1), ('t1', 2, 'chatgpt', 'ChatGPT', 'reply', 0),
			       ('t1', 3, 'gemini', 'Gemini', 'reply', 0);`)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, want := range map[string][3]string{"t1": {"ChatGPT", "Gemini", "MC"}, "t2": {"ghost", "", ""}} {
		var got [3]string
		if err := st.r.QueryRowContext(ctx, `SELECT participant_a_name, participant_b_name, moderator_name FROM conversation_meta
			WHERE conversation_id = ?`, id).Scan(&got[0], &got[1], &got[2]); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: participants %q, want %q", id, got, want)
		}
	}
}

// A structured answer (a MAGI vote) streams as prose deltas; its checkpoint
// keeps the answer as the model sent it, JSON and all, from the deltas' raw text.
func TestStructuredAnswerIsCheckpointedAsSent(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	rec := st.RecordEvery(50 * time.Millisecond)
	rec.Sink(debate.SessionStarted{Session: debate.SessionInfo{ID: "s1", Mode: "magi", Created: time.Now()}})
	rec.Sink(debate.TurnStarted{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindVote, Speaker: "a", Display: "A", Model: "m", Mode: "magi",
		Status: transcript.StatusStreaming, Started: time.Now()}})
	for _, d := range []debate.TextDelta{
		{Turn: 1, Agent: "a", Raw: `{"vote": "reject", `},
		{Turn: 1, Agent: "a", Field: "reasoning", Text: "Too thin", Raw: `"reasoning": "Too thin`},
	} {
		rec.Sink(d)
	}
	want := `{"vote": "reject", "reasoning": "Too thin`
	waitFor(t, func() bool {
		_, got, err := st.Load(ctx, "s1")
		return err == nil && len(got) == 1 && got[0].Text == want
	})
}

// The checkpoint ticker runs only while text streams: a recorder with
// nothing streaming (a loaded session waiting, hundreds of them in a
// server) does not wake every CheckpointEvery (issue 50: ~4 % of a core
// idle), and a later answer starts it again and is checkpointed.
func TestIdleRecorderStopsTicking(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	rec := st.RecordEvery(5 * time.Millisecond)
	ticking := func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return rec.ticking
	}
	info := debate.SessionInfo{ID: "s1", Mode: "mention", Created: time.Now()}
	rec.Sink(debate.SessionStarted{Session: info})
	if ticking() {
		t.Fatal("a recorder with nothing streaming ticks")
	}
	for turn := 1; turn <= 2; turn++ {
		en := transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: "a", Display: "A", Model: "m", Mode: "mention",
			Status: transcript.StatusStreaming, Started: time.Now()}
		rec.Sink(debate.TurnStarted{Entry: en})
		rec.Sink(debate.TextDelta{Turn: turn, Agent: "a", Text: "streamed"})
		if !ticking() {
			t.Fatalf("turn %d: streaming text did not start the ticker", turn)
		}
		waitFor(t, func() bool { // checkpointed by the ticker: no Flush
			_, got, err := st.Load(ctx, "s1")
			return err == nil && len(got) == turn && got[turn-1].Text == "streamed"
		})
		en.Text, en.Status, en.Finished = "streamed", transcript.StatusComplete, time.Now()
		rec.Sink(debate.TurnFinished{Entry: en})
		waitFor(t, func() bool { return !ticking() })
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}
