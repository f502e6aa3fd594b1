package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers/providertest"
)

// slowAnswer is an answer whose chunks arrive 150 ms apart.
func slowAnswer(t *testing.T) {
	t.Helper()
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"First words", " arrive", " long", " before", " the", " end."}, ChunkDelay: 150 * time.Millisecond}
	})
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
}

// Piped into another program, ask shows the answer while it streams: the
// first words are on stdout long before the command ends.
func TestAskStreamsToAPipe(t *testing.T) {
	t.Parallel()
	isolate(t)
	slowAnswer(t)
	out, errOut := newWatchBuffer("[ChatGPT]: First words"), &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- executeIO(t, context.Background(), []string{"ask", "@chatgpt tell me"}, strings.NewReader(""), out, errOut)
	}()
	select {
	case <-out.seen:
	case code := <-done:
		t.Fatalf("ended (exit %d) before its first words were seen: %q %q", code, out.String(), errOut.String())
	}
	select {
	case code := <-done:
		t.Fatalf("the first words came only with the end (exit %d)", code)
	default: // five more chunks, 150 ms apart, are still on their way
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got := out.String(); got != "[ChatGPT]: First words arrive long before the end.\n" {
		t.Fatalf("output %q", got)
	}
}

// --jsonl prints each event as it happens: text deltas come before the
// turn is finished, and every line is one JSON object with its type first.
func TestJSONLPrintsDeltasBeforeTheAnswerEnds(t *testing.T) {
	t.Parallel()
	isolate(t)
	slowAnswer(t)
	code, out, stderr := runCLI(t, "", "--jsonl", "ask", "@chatgpt tell me")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil || !strings.HasPrefix(line, `{"type":`) {
			t.Fatalf("not an event line: %q (%v)", line, err)
		}
		types = append(types, ev.Type)
	}
	first, finished := -1, -1
	for i, typ := range types {
		if typ == "text_delta" && first < 0 {
			first = i
		}
		if typ == "turn_finished" {
			finished = i
		}
	}
	if first < 0 || finished < first || types[len(types)-1] != "exchange_finished" {
		t.Fatalf("event order: %v", types)
	}
}
