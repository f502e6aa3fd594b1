package tui

import (
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/tui/prefs"

	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers/providertest"
)

// Two batches are never delivered within one frame of each other, however
// fast events arrive: the console draws at most ~60 frames a second.
func TestEventBusCoalescesIntoFrames(t *testing.T) {
	t.Parallel()
	bus := newEventBus(64)
	bus.frame = 40 * time.Millisecond // long enough to measure on a loaded machine
	bus.Sink(debate.TextDelta{Turn: 1, Text: "a"})
	first := time.Now()
	if msg := bus.Wait().(eventsMsg); len(msg) != 1 {
		t.Fatalf("first batch %d events", len(msg))
	}
	go func() {
		for i := 0; i < 50; i++ {
			bus.Sink(debate.TextDelta{Turn: 1, Text: "b"})
		}
	}()
	got := 0
	for got < 50 {
		msg := bus.Wait().(eventsMsg)
		if since := time.Since(first); since < bus.frame {
			t.Fatalf("a second batch %v after the first, within a frame of %v", since, bus.frame)
		}
		first = time.Now()
		for _, ev := range msg {
			got += len(ev.(debate.TextDelta).Text) // a frame's deltas arrive merged
		}
	}
	bus.Close()
}

// A frame's deltas reach the console merged, one per answer and field,
// never across another event: the text and the order of events are kept.
func TestEventBusMergesAFramesDeltas(t *testing.T) {
	bus := newEventBus(64)
	bus.frame = 0
	for _, ev := range []debate.Event{
		debate.TextDelta{Turn: 1, Agent: "a", Text: "one "},
		debate.TextDelta{Turn: 2, Agent: "b", Text: "uno "},
		debate.TextDelta{Turn: 1, Agent: "a", Text: "two "},
		debate.TextDelta{Turn: 2, Agent: "b", Text: "reason", Field: "reasoning"},
		debate.TextDelta{Turn: 2, Agent: "b", Text: "dos "},
		debate.TurnFinished{Entry: transcript.Entry{Turn: 2}},
		debate.TextDelta{Turn: 1, Agent: "a", Text: "three"},
	} {
		bus.Sink(ev)
	}
	var got []string
	for _, ev := range bus.Wait().(eventsMsg) {
		switch ev := ev.(type) {
		case debate.TextDelta:
			got = append(got, fmt.Sprintf("%d%s:%q", ev.Turn, ev.Field, ev.Text))
		default:
			got = append(got, fmt.Sprintf("%T", ev))
		}
	}
	want := `1:"one two " 2:"uno dos " 2reasoning:"reason" debate.TurnFinished 1:"three"`
	if strings.Join(got, " ") != want {
		t.Errorf("batch %s\nwant  %s", strings.Join(got, " "), want)
	}
	bus.Close()
}

// streamAnswer is an answer of the size and shape models send: headings,
// a list, a code block and paragraphs (about 600 tokens).
func streamAnswer(agent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s on the retry loop\n\nThe loop needs **a bound** on attempts and on the total wait.\n\n", agent)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "%d. Step %d: back off exponentially with `jitter`, cap the wait at the deadline, and log the attempt.\n", i, i)
	}
	b.WriteString("\n```go\nfunc retry(ctx context.Context, call func() error) error {\n\tfor attempt := 0; ; attempt++ {\n\t\tif err := call(); err == nil || attempt == 5 {\n\t\t\treturn err\n\t\t}\n\t\tselect {\n\t\tcase <-ctx.Done():\n\t\t\treturn ctx.Err()\n\t\tcase <-time.After(backoff(attempt)):\n\t\t}\n\t}\n}\n```\n\n")
	for i := 0; i < 4; i++ {
		b.WriteString("Keep the state explicit and the errors typed, so the caller can tell a timeout from a refusal and decide whether to try again. ")
		b.WriteString("A retry that ignores the deadline turns a slow dependency into an outage.\n\n")
	}
	b.WriteString("- first: measure\n- then: cap\n- last: give up cleanly\n")
	return b.String()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConsoleStream: three agents stream Markdown answers at 80 tokens
// a second each into a 200×60 console that draws 60 frames a second (the
// event bus's pace). It reports the process CPU time per streamed token,
// frames, final renders and garbage collection included.
func BenchmarkConsoleStream(b *testing.B) {
	const agentsN, rate, fps = 3, 80, 60
	b.Run(fmt.Sprintf("agents=%d", agentsN), func(b *testing.B) {
		names := []string{"melchior", "balthasar", "casper"}
		var tokens [agentsN][]string
		for i, n := range names {
			tokens[i] = providertest.SplitWords(streamAnswer(n))
		}
		var cpu time.Duration
		streamed := 0
		for b.Loop() {
			b.StopTimer()
			e := testEngine(b, 0)
			if err := e.SetMode("magi"); err != nil {
				b.Fatal(err)
			}
			m := New(testOptions(e))
			m.bus.frame = 0 // frames are drawn below, at the bus's pace
			m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
			drain(m)
			m.View()
			b.StartTimer()
			start := cpuTime()
			for i, n := range names {
				a, _ := e.Agent(n)
				e.Emit(debate.TurnStarted{Entry: transcript.Entry{Turn: i + 1, Kind: transcript.KindReply, Speaker: n, Display: a.Label(), Model: a.Model, Status: transcript.StatusStreaming, Started: fixedNow}})
			}
			perFrame := agentsN * rate / fps
			next := [agentsN]int{}
			for done := 0; done < agentsN; {
				for k := 0; k < perFrame; k++ {
					i := (streamed + k) % agentsN
					if next[i] < len(tokens[i]) {
						e.Emit(debate.TextDelta{Turn: i + 1, Agent: names[i], Text: tokens[i][next[i]]})
						next[i]++
						streamed++
						if next[i] == len(tokens[i]) {
							a, _ := e.Agent(names[i])
							e.Emit(debate.TurnFinished{Entry: transcript.Entry{Turn: i + 1, Kind: transcript.KindReply, Speaker: names[i], Display: a.Label(), Model: a.Model, Text: strings.Join(tokens[i], ""), Status: transcript.StatusComplete, Started: fixedNow, Finished: fixedNow}})
							done++
						}
					}
				}
				drain(m)
				_ = m.View()
			}
			cpu += cpuTime() - start
			b.StopTimer()
			m.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(streamed), "ms-cpu/token")
	})
}

// Every word of a streamed paragraph is on screen as soon as it arrives,
// whether the arriving line was rendered again or extended.
func TestStreamingShowsEveryWord(t *testing.T) {
	t.Parallel()
	var s streamingText
	md := newMarkdown(newTheme(prefs.ThemeDark))
	words := strings.Fields(strings.Repeat("the retry loop caps its wait and keeps errors typed ", 12))
	for i, w := range words {
		s.Append(" " + w)
		shown := strings.Join(strings.Fields(ansi.Strip(strings.Join(s.Lines(md, 60), " "))), " ")
		if want := strings.Join(words[:i+1], " "); shown != want {
			t.Fatalf("after %d words the screen shows %q", i+1, shown)
		}
	}
}

func TestMarkdownLinesCarryNoStyledPadding(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(prefs.ThemeDark))
	for _, l := range md.Render("hello **world** and\n\n- one\n- two", 60) {
		if strings.HasSuffix(l, " \x1b[m") || strings.HasSuffix(l, " ") {
			t.Fatalf("padded line %q", l)
		}
	}
	if got := trimPadding("\x1b[1mkept \x1b[m\x1b[38;5;252m \x1b[m\x1b[38;5;252m \x1b[m"); got != "\x1b[1mkept \x1b[m" {
		t.Fatalf("trimPadding = %q", got)
	}
}
