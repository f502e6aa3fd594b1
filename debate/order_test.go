package debate_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

// checkTurnEvents asserts what every consumer of the events relies on: each
// agent turn has one TurnStarted, then its deltas and usage, then exactly
// one TurnFinished, and nothing about the turn after that.
func checkTurnEvents(t *testing.T, events []Event) {
	t.Helper()
	started, finished := map[int]bool{}, map[int]int{}
	after := func(turn int, what string) {
		if !started[turn] {
			t.Errorf("%s for turn %d before its TurnStarted", what, turn)
		}
		if finished[turn] > 0 {
			t.Errorf("%s for turn %d after its TurnFinished", what, turn)
		}
	}
	for _, ev := range events {
		switch ev := ev.(type) {
		case TurnStarted:
			if started[ev.Entry.Turn] {
				t.Errorf("turn %d started twice", ev.Entry.Turn)
			}
			started[ev.Entry.Turn] = true
		case TextDelta:
			after(ev.Turn, "a delta")
		case UsageReported:
			after(ev.Turn, "usage")
		case Retrying:
			after(ev.Turn, "a retry")
		case TurnFinished:
			after(ev.Entry.Turn, "TurnFinished")
			finished[ev.Entry.Turn]++
		}
	}
	for turn := range started {
		if finished[turn] != 1 {
			t.Errorf("turn %d finished %d times, want once", turn, finished[turn])
		}
	}
}

// A tool loop that ends with complete announced that turn finished twice
// (once with the XML, once with the summary): the console added its tokens
// to the session total twice.
func TestToolLoopCompleteFinishesItsTurnOnce(t *testing.T) {
	t.Parallel()
	_, p := OpenAIFake(t,
		TextReply("<list_file><path>.</path><recursive>false</recursive></list_file>"),
		TextReply("<complete><summary>A tiny greeter.</summary></complete>"),
	)
	e, ev := ToolLoopEngine(t, known, p, "agent", ToolWorkspace(t), 5)
	if err := e.Submit(context.Background(), "what is this?"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	checkTurnEvents(t, ev.All())
	var total providers.Usage
	for _, x := range ev.All() {
		if tf, ok := x.(TurnFinished); ok {
			total = total.Add(tf.Entry.Usage)
			if strings.Contains(tf.Entry.Text, "<complete>") {
				t.Errorf("TurnFinished carries the raw call, not the summary: %q", tf.Entry.Text)
			}
		}
	}
	if total.OutputTokens != 40 {
		t.Fatalf("TurnFinished events add up to %d output tokens, the two calls used 40", total.OutputTokens)
	}
	if en, _ := e.History().Get(e.History().Len()); en.Text != "A tiny greeter." || en.Status != transcript.StatusComplete {
		t.Fatalf("last entry %+v", en)
	}
}

// Every mode keeps the turn events well-formed, including the MAGI retry
// and a talk.
func TestEveryModeFinishesEachTurnOnce(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"mention", "alternate", "talk", "magi"} {
		t.Run(mode, func(t *testing.T) {
			e, _, events := NewModeEngine(t, ModeConfig(known), mode, func(f map[string]*ModeFake) {
				// chatgpt's first answer to anything is unreadable as a vote,
				// so the council asks it again.
				f["chatgpt"].Answer = func(_ int, req providers.Request) string {
					if strings.Contains(LastContent(req), "could not be read") {
						return `{"vote":"approve","reasoning":"Fine.","summary":"ok"}`
					}
					return "not a vote"
				}
			})
			if err := e.Submit(context.Background(), "@all should we ship?"); err != nil && mode != "mention" {
				t.Fatal(err)
			}
			Settle(t, e)
			checkTurnEvents(t, events.All())
		})
	}
}

// Parallel replies keep configuration order in the history, also when an
// agent with tools: true answers without using a tool and finishes last.
func TestMentionToolAgentKeepsConfigurationOrder(t *testing.T) {
	t.Parallel()
	fakes := map[string]*Fake{
		"gemini":  {Agent: "gemini", Delay: 80 * time.Millisecond, Answer: func(providers.Request) string { return "gemini answers plainly" }},
		"chatgpt": {Agent: "chatgpt"},
	}
	e, log := NewSpineEngine(known, fakes)
	gemini, _ := e.Agent("gemini")
	gemini.Tools = config.ToolList{"files"}
	if err := e.SetWorkspace(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), "@all hello"); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindReply {
			order = append(order, en.Speaker)
		}
	}
	if got := strings.Join(order, ","); got != "gemini,chatgpt" {
		t.Fatalf("replies in %s, want configuration order gemini,chatgpt", got)
	}
	// Neither saw the other's reply.
	for _, name := range []string{"gemini", "chatgpt"} {
		for _, m := range fakes[name].Requests()[0].Messages {
			if strings.Contains(m.Content, "gemini answers") || strings.Contains(m.Content, "ok from chatgpt") {
				t.Fatalf("%s saw a reply of the same round: %q", name, m.Content)
			}
		}
	}
	Settle(t, e)
	checkTurnEvents(t, log.All())
}

// Two goroutines asking for a mode that is not built yet must get the same
// instance: a Pause sent to one copy of a talk would not hold the other.
func TestModeIsBuiltOnceUnderConcurrentUse(t *testing.T) {
	var builds atomic.Int32
	release := make(chan struct{})
	slow := testMode(config.ModeInfo{Name: "test-slow-build"}, func(e Session) (Mode, error) {
		builds.Add(1)
		<-release
		return &probeMode{name: "probe", e: e}, nil
	})
	e, _ := NewSpineEngine(append(known, slow), nil)
	got := make([]Mode, 2)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := e.Mode("test-slow-build")
			if err != nil {
				t.Error(err)
			}
			got[i] = m
		}()
	}
	// One caller builds; the other waits for it: both are in Mode now.
	waitForGoroutines(t, 1, "chan receive", "(*Engine).modeNamed")
	waitForGoroutines(t, 1, "sync.Mutex.Lock", "(*Engine).modeNamed")
	close(release)
	wg.Wait()
	if got[0] != got[1] {
		t.Fatalf("two instances of one mode were handed out (%d builds)", builds.Load())
	}
}

// A mode built on the old session must not outlive a Restore: it would act
// on the old session's state.
func TestRestoreDropsAModeBuiltMeanwhile(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	held := testMode(config.ModeInfo{Name: "test-restore-build"}, func(e Session) (Mode, error) {
		once.Do(func() { close(entered); <-release })
		return &probeMode{name: "probe", e: e}, nil
	})
	e, _ := NewSpineEngine(append(known, held), nil)
	first := make(chan Mode, 1)
	go func() {
		m, _ := e.Mode("test-restore-build")
		first <- m
	}()
	<-entered
	restored := make(chan error, 1)
	go func() { restored <- e.Restore(SessionInfo{ID: "other", Mode: "mention"}, nil) }()
	waitForGoroutines(t, 1, "sync.Mutex.Lock", "(*Engine).Restore") // waits for the build
	close(release)
	if err := <-restored; err != nil {
		t.Fatal(err)
	}
	old := <-first
	now, err := e.Mode("test-restore-build")
	if err != nil {
		t.Fatal(err)
	}
	if now == old {
		t.Fatal("the mode built for the old session survived the Restore")
	}
}

// Restoring another session while agents answer would let the running
// turns write their answers into the other session's history.
func TestRestoreRefusedWhileBusy(t *testing.T) {
	t.Parallel()
	fakes := map[string]*Fake{"gemini": {Agent: "gemini", Delay: time.Second}}
	e, _ := NewSpineEngine(known, fakes)
	started := On[TurnStarted](e, nil)
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "@gemini slow one") }()
	<-started
	other := []transcript.Entry{{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "a", Status: transcript.StatusComplete}, {Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "b", Status: transcript.StatusComplete}}
	err := e.Restore(SessionInfo{ID: "other", Mode: "mention"}, other)
	e.Cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Submit did not return within 30s of the cancel")
	}
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Restore while busy: %v, want ErrBusy", err)
	}
	for _, en := range e.History().Entries() {
		if en.Status == transcript.StatusStreaming {
			t.Fatalf("left streaming: %+v", en)
		}
	}
	if en, _ := e.History().Get(2); en.Speaker != "gemini" {
		t.Fatalf("history changed under the running turn: %s", fmt.Sprint(e.History().Entries()))
	}
}

// Entries added from several goroutines at once (parallel tool loops, a note
// typed during an exchange) are announced in turn order: the headless
// printer prints turns in the order their TurnStarted arrived.
func TestNewEntriesAreAnnouncedInTurnOrder(t *testing.T) {
	t.Parallel()
	e, log := NewSpineEngine(known, nil)
	gemini, _ := e.Agent("gemini")
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				e.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "note"})
				return
			}
			t := e.Reserve(TurnSpec{Agent: gemini})
			t.Finish(transcript.Entry{Kind: transcript.KindReply, Speaker: "gemini", Status: transcript.StatusComplete, Text: "x"})
		}()
	}
	wg.Wait()
	Settle(t, e)
	last := 0
	for _, ev := range log.All() {
		var turn int
		switch ev := ev.(type) {
		case EntryAdded:
			turn = ev.Entry.Turn
		case TurnStarted:
			turn = ev.Entry.Turn
		default:
			continue
		}
		if turn != last+1 {
			t.Fatalf("turn %d announced after turn %d", turn, last)
		}
		last = turn
	}
}

// waitForGoroutines waits until n goroutines are blocked in state (as a
// goroutine dump shows it, e.g. "sync.Mutex.Lock") with fn on their stack:
// the condition a test needs before it releases them, without guessing a
// duration.
func waitForGoroutines(t *testing.T, n int, state, fn string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	buf := make([]byte, 1<<20)
	for {
		dump := string(buf[:runtime.Stack(buf, true)])
		found := 0
		for _, g := range strings.Split(dump, "\n\n") {
			header, _, _ := strings.Cut(g, "\n")
			if strings.Contains(header, "["+state) && strings.Contains(g, fn) {
				found++
			}
		}
		if found >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines blocked in %s under %s, want %d:\n%s", found, state, fn, n, dump)
		}
		runtime.Gosched()
	}
}
