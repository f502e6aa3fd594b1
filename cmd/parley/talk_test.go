package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
)

func TestTalkCmdDemoPrintsRoundsAndClosing(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "talk", "--topic", "tabs or spaces", "--rounds", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	order := []string{"[MC]: Welcome", "── round 1 ──", "[ChatGPT]: ", "[Gemini]: ", "[MC]: Round 1 of 1 summary", "── closing ──", "[MC]: Thank you both"}
	at := -1
	for _, want := range order {
		i := strings.Index(out, want)
		if i <= at {
			t.Fatalf("%q missing or out of order in:\n%s", want, out)
		}
		at = i
	}
	if !strings.Contains(out, " tok)\n") || !strings.Contains(stderr, "5 turns") {
		t.Fatalf("no token counts: out %q err %q", out, stderr)
	}
}

func TestTalkCmdJSONWithFailingGuest(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	// Guest B is gemini, whose provider cannot be reached: its turns fail,
	// the talk goes on and the MC still closes; the exit code says so.
	openai, anthropic, order := fakeVendors(t, dir, unreachableGemini)
	code, out, stderr := runCLI(t, "", "--json", "talk", "--topic", "open source funding", "--rounds", "2")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if got := order(); got != "claude-sonnet-5-5,gpt-6.1-sol,claude-sonnet-5-5,gpt-6.1-sol,claude-sonnet-5-5,claude-sonnet-5-5" {
		t.Fatalf("calls %s", got)
	}
	type row struct {
		Turn        int    `json:"turn"`
		Round       int    `json:"round"`
		Speaker     string `json:"speaker"`
		IsModerator *bool  `json:"is_moderator"`
		Status      string `json:"status"`
		Text        string `json:"text"`
		Error       string `json:"error"`
	}
	var rows []row
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if r.IsModerator == nil {
			t.Fatalf("is_moderator missing: %s", line)
		}
		rows = append(rows, r)
	}
	var shape []string
	for _, r := range rows {
		shape = append(shape, r.Speaker+"/"+r.Status)
	}
	want := "mc/complete chatgpt/complete gemini/error mc/complete chatgpt/complete gemini/error mc/complete mc/complete"
	if got := strings.Join(shape, " "); got != want {
		t.Fatalf("rows %s\nwant %s", got, want)
	}
	if !strings.Contains(rows[2].Error, "cannot reach") || !*rows[7].IsModerator || *rows[1].IsModerator {
		t.Fatalf("rows %+v", rows)
	}
	// The MC's closing request asked it to close and carried the guests' words.
	mc := anthropic.Requests()
	closing := mc[len(mc)-1]
	lastMsg := closing.Messages[len(closing.Messages)-1].Content
	if !strings.Contains(lastMsg, "close the talk") || len(openai.Requests()) != 2 {
		t.Fatalf("closing request ends with %q", lastMsg)
	}
}

func TestTalkCmdFlagsChooseTheSpeakers(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	_, _, order := fakeVendors(t, dir, "")
	code, out, stderr := runCLI(t, "", "talk", "--topic", "x", "--rounds", "1", "--a", "codex", "--b", "claude", "--mc", "chatgpt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := order(); got != "gpt-6.1-sol,gpt-5.3-codex,claude-sonnet-5-5,gpt-6.1-sol,gpt-6.1-sol" {
		t.Fatalf("calls %s", got)
	}
	if !strings.HasPrefix(out, "[ChatGPT]: openai reply 1 to gpt-6.1-sol.  (120 tok)") {
		t.Fatalf("out:\n%s", out)
	}
}

func TestTalkCmdUsageErrors(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--demo", "talk"}, "a topic is required"},
		{[]string{"--demo", "talk", "--topic", "x", "--a", "bard"}, `unknown agent "bard"`},
		{[]string{"--demo", "talk", "--topic", "x", "--rounds", "0"}, "--rounds"},
		{[]string{"--demo", "talk", "positional", "--topic", "flag"}, "give the topic once"},
	} {
		code, out, stderr := runCLI(t, "", c.args...)
		if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Fatalf("%v: exit %d out %q err %q", c.args, code, out, stderr)
		}
	}
}

// The topic may follow talk as magi's and council's question does (seen:
// `parley talk "Tabs or spaces?"` met cobra's "unknown command").
func TestTalkTakesItsTopicAsWords(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	fakeVendors(t, dir, "")
	if code, _, stderr := runCLI(t, "", "talk", "four-day", "weeks", "--rounds", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if info, _ := savedSession(t); info.Topic != "four-day weeks" {
		t.Fatalf("saved topic %q", info.Topic)
	}
}

func TestTalkCmdSavesTopicGuestsAndModerator(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	fakeVendors(t, dir, "modes:\n  talk:\n    b: claude\n")
	if code, _, stderr := runCLI(t, "", "talk", "--topic", "four-day weeks", "--rounds", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info, entries := savedSession(t)
	if info.Mode != "talk" || info.Topic != "four-day weeks" || info.State["talk.a"] != "chatgpt" || info.State["talk.b"] != "claude" || info.State["talk.moderator"] != "mc" {
		t.Fatalf("saved session %+v", info)
	}
	var shape []string
	for _, en := range entries {
		shape = append(shape, fmt.Sprintf("%s/%v", en.Speaker, en.IsModerator))
	}
	// The MC's opening is the first turn; the topic is the session's, not a
	// row; the talk's outcome closes it.
	if got := strings.Join(shape, " "); got != "mc/true chatgpt/false claude/false mc/true mc/true system/false" {
		t.Fatalf("saved turns %s", got)
	}
}

// lockedBuffer is a bytes.Buffer safe to read while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// watchBuffer is a buffer that says when its text first contains want.
type watchBuffer struct {
	lockedBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func newWatchBuffer(want string) *watchBuffer {
	return &watchBuffer{want: want, seen: make(chan struct{})}
}

func (w *watchBuffer) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if strings.Contains(w.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

// A real Ctrl+C during a headless talk follows the one policy: it cancels
// the turn in flight, keeps what arrived marked cancelled, and ends the run.
func TestTalkCmdCtrlCCancelsKeepingWhatArrived(t *testing.T) {
	isolate(t)
	out, errOut := newWatchBuffer("[ChatGPT]: "), &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- executeIO(t, context.Background(), []string{"--demo", "talk", "--topic", "coffee or tea", "--rounds", "5"}, strings.NewReader(""), out, errOut)
	}()
	select {
	case <-out.seen: // a guest is streaming: the run loop listens for Ctrl+C by now
	case <-time.After(30 * time.Second):
		t.Fatalf("no guest turn: %q %q", out.String(), errOut.String())
	}
	self, _ := os.FindProcess(os.Getpid())
	if err := self.Signal(os.Interrupt); err != nil {
		t.Skipf("cannot send Ctrl+C to ourselves here: %v", err) // Windows
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the talk did not end after Ctrl+C")
	}
	got := out.String()
	if code != cli.ExitRuntime || !strings.Contains(got, "[cancelled]") || strings.Contains(got, "── round 2 ──") {
		t.Fatalf("exit %d\nout:\n%s\nerr:\n%s", code, got, errOut.String())
	}
}
