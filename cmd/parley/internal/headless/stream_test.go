package headless

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// replay feeds a conversation printer two parallel turns: turn 2 streams
// a in pieces cut at cutsA, turn 3 streams b cut at cutsB and finishes
// first. With headSpoke, a's first piece arrives before b's; otherwise
// turn 2 is silent until b has finished. It returns stdout.
func replay(a, b string, cutsA, cutsB []int, style Style, headSpoke ...bool) string {
	var out strings.Builder
	p := New(Options{Out: &out, Err: &strings.Builder{}, Format: Text, Style: style})
	gem := transcript.Entry{Turn: 2, Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Status: transcript.StatusStreaming}
	gpt := transcript.Entry{Turn: 3, Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Status: transcript.StatusStreaming}
	p.Sink(debate.TurnStarted{Entry: gem})
	p.Sink(debate.TurnStarted{Entry: gpt})
	piecesA := cut(a, cutsA)
	if len(headSpoke) > 0 && headSpoke[0] {
		p.Sink(debate.TextDelta{Turn: 2, Agent: "gemini", Text: piecesA[0]})
		piecesA = piecesA[1:]
	}
	for _, piece := range cut(b, cutsB) {
		p.Sink(debate.TextDelta{Turn: 3, Agent: "chatgpt", Text: piece})
	}
	gpt.Text, gpt.Status = b, transcript.StatusComplete
	p.Sink(debate.TurnFinished{Entry: gpt})
	for _, piece := range piecesA {
		p.Sink(debate.TextDelta{Turn: 2, Agent: "gemini", Text: piece})
	}
	gem.Text, gem.Status = a, transcript.StatusCancelled
	p.Sink(debate.TurnFinished{Entry: gem})
	p.EndExchange(nil)
	return out.String()
}

func cut(s string, at []int) []string {
	var out []string
	prev := 0
	for _, c := range at {
		if c > prev && c < len(s) {
			out = append(out, s[prev:c])
			prev = c
		}
	}
	return append(out, s[prev:])
}

// Streaming prints exactly what printing each finished turn whole gives:
// the turns in history order, a blank line around multi-line ones, the
// status marked, nothing raw.
func TestConversationStreamsInHistoryOrder(t *testing.T) {
	t.Parallel()
	got := replay("  Line one\n\x1b[31mline two\x1b[0m  \n", "one line", []int{3, 9, 12, 14}, []int{2}, Conversation, true)
	want := "[Gemini]: Line one\nline two [cancelled]\n\n[ChatGPT]: one line\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	got = replay("short", "also short", []int{2}, nil, Conversation, true)
	if want := "[Gemini]: short [cancelled]\n[ChatGPT]: also short\n"; got != want {
		t.Fatalf("one-line turns: got %q, want %q", got, want)
	}
	got = replay("talk turn", "b", nil, nil, Talk, true)
	if !strings.Contains(got, "[Gemini]: talk turn [cancelled]  (0 tok)\n\n") {
		t.Fatalf("talk: %q", got)
	}
}

// A turn that has sent nothing yet (slow to start, or stalled) does not
// hold back the answers behind it that are finished: they print at once,
// and it prints when it speaks.
func TestSilentTurnHoldsNothingBack(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	p := New(Options{Out: &out, Err: &strings.Builder{}, Format: Text, Style: Conversation})
	gem := transcript.Entry{Turn: 2, Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Status: transcript.StatusStreaming}
	gpt := transcript.Entry{Turn: 3, Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Status: transcript.StatusStreaming}
	p.Sink(debate.TurnStarted{Entry: gem})
	p.Sink(debate.TurnStarted{Entry: gpt})
	p.Sink(debate.TextDelta{Turn: 3, Agent: "chatgpt", Text: "finished first"})
	gpt.Text, gpt.Status = "finished first", transcript.StatusComplete
	p.Sink(debate.TurnFinished{Entry: gpt})
	if got := out.String(); got != "[ChatGPT]: finished first\n" {
		t.Fatalf("the finished answer waits behind a silent one: %q", got)
	}
	p.Sink(debate.TextDelta{Turn: 2, Agent: "gemini", Text: "late, then stalled"})
	gem.Text, gem.Status, gem.Error = "late, then stalled", transcript.StatusPartial, "openai: timeout: no bytes for 2m0s"
	p.Sink(debate.TurnFinished{Entry: gem})
	p.EndExchange(nil)
	if got := out.String(); !strings.HasPrefix(got, "[ChatGPT]: finished first\n[Gemini]: late, then stalled") {
		t.Fatalf("got %q", got)
	}
}

// However the answers are cut into deltas, the output is the same.
func FuzzConversationStream(f *testing.F) {
	f.Add("Hello\nworld", "one", 3, 1, 7)
	f.Add("\x1b]0;t\x07 a \x1b[1mb", "x\ny", 2, 5, 1)
	f.Add("  spaced  \n\n text  ", "漢字 wide", 4, 3, 9)
	f.Fuzz(func(t *testing.T, a, b string, c1, c2, c3 int) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // answers arrive decoded from JSON: always valid UTF-8
		}
		whole := replay(a, b, nil, nil, Conversation)
		pieces := replay(a, b, []int{abs(c1), abs(c1) + abs(c2)}, []int{abs(c3)}, Conversation)
		if whole != pieces {
			t.Fatalf("cut output differs:\nwhole  %q\npieces %q", whole, pieces)
		}
		if strings.ContainsAny(pieces, "\x1b\x07") {
			t.Fatalf("raw control bytes: %q", pieces)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestAStreamedDeltaIsPrintedWithoutAllocating: once a turn is open, a
// text delta goes to stdout with no allocation of the printer's (it made
// two a delta: fmt.Fprint boxed the text and the builder it was collected
// in was dropped after each write). Counted, not timed.
func TestAStreamedDeltaIsPrintedWithoutAllocating(t *testing.T) {
	var out strings.Builder
	out.Grow(1 << 20)
	p := New(Options{Out: &out, Err: &strings.Builder{}, Format: Text, Style: Conversation})
	p.Sink(debate.TurnStarted{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Status: transcript.StatusStreaming}})
	var ev debate.Event = debate.TextDelta{Turn: 1, Agent: "chatgpt", Text: " wörd\n"}
	p.Sink(ev)
	if a := testing.AllocsPerRun(1000, func() { p.Sink(ev) }); a > 0.1 {
		t.Errorf("%.2f allocations a streamed delta, want none", a)
	}
	if n := strings.Count(out.String(), "wörd"); n != 1002 {
		t.Errorf("%d deltas printed, want 1002:\n%.200s", n, out.String())
	}
}
