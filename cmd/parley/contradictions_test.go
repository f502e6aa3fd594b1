package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/modes"
)

// --jsonl opens with session_started, as the README's event table says.
func TestJSONLStartsWithSessionStarted(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "--jsonl", "ask", "@gemini hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	first, _, _ := strings.Cut(out, "\n")
	var ev struct {
		Type    string `json:"type"`
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
	}
	if err := json.Unmarshal([]byte(first), &ev); err != nil || ev.Type != "session_started" || ev.Session.ID == "" {
		t.Errorf("first line %q (%v), want a session_started event with the session's id", first, err)
	}
	if n := strings.Count(out, `"type":"session_started"`); n != 1 {
		t.Errorf("%d session_started events, want 1", n)
	}
}

// Where no terminal is, the hint lists every headless command there is.
func TestNoTerminalHintListsEveryCommand(t *testing.T) {
	t.Parallel()
	names := strings.Join(headlessCommands(newRootCmd(testFactory(modes.All(), factory.NewMap(nil), nil, io.Discard, io.Discard))), " ")
	for _, want := range []string{"ask", "repl", "alternate", "talk", "magi", "agent", "council", "bench", "serve", "sessions"} {
		if !strings.Contains(" "+names+" ", " "+want+" ") {
			t.Errorf("the hint lacks %s: %s", want, names)
		}
	}
}

// Coming back to a session says which one and how long it is.
func TestSessionFlagSaysWhichSessionCameBack(t *testing.T) {
	t.Parallel()
	isolate(t)
	if code, _, stderr := runCLI(t, "", "--demo", "ask", "@gemini compare Kafka and NATS"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, list, _ := runCLI(t, "", "--json", "sessions", "list")
	var sessions []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(list), &sessions); err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %q: %v", list, err)
	}
	code, _, stderr := runCLI(t, "", "--demo", "ask", "--session", sessions[0].ID, "@chatgpt and you?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, `parley: resumed "`) || !strings.Contains(stderr, `" (2 turns)`) {
		t.Errorf("stderr does not say which session came back:\n%s", stderr)
	}
}
