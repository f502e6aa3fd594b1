package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// replyText is a reply with the Markdown a real answer has.
func replyText(i int) string {
	return fmt.Sprintf("Answer **%d**: here is how I see it.\n\n1. The core idea, stated plainly.\n2. A concrete example with `code`.\n3. The main trade-off.\n\n```go\nfmt.Println(%d)\n```\n\nIn short: it depends on the numbers.", i, i)
}

// benchModel is a console at w×h over a history of n finished turns.
func benchModel(b *testing.B, n, w, h int) *Model {
	e := testEngine(b, 0)
	agents := []string{"gemini", "chatgpt"}
	for i := 0; i < n; i++ {
		en := transcript.Entry{Started: fixedNow, Finished: fixedNow.Add(time.Second)}
		switch i % 3 {
		case 0:
			en.Kind, en.Speaker, en.Text = transcript.KindUser, transcript.SpeakerUser, fmt.Sprintf("@all question %d about queues and throughput", i)
		default:
			a, _ := e.Agent(agents[i%3-1])
			en.Kind, en.Speaker, en.Model, en.Text = transcript.KindReply, a.Name, a.Model, replyText(i)
			en.Usage = providers.Usage{InputTokens: 100, OutputTokens: 80}
		}
		e.AddEntry(en)
	}
	m := New(testOptions(e))
	m.bus.frame = 0 // the benchmark draws its own frames
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drain(m)
	m.View() // warm the caches: the first frame renders what is visible
	return m
}

// drain applies the queued events the way the program would, once the
// engine has delivered every event emitted so far.
func drain(m *Model) {
	_ = m.engine.Wait(context.Background())
	for len(m.bus.ch) > 0 {
		m.Update(m.bus.Wait())
	}
}

// BenchmarkView is one 200×60 frame over a short and a very long transcript:
// the time must not grow with the history (only what is visible is drawn).
func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			m := benchModel(b, n, 200, 60)
			b.ReportAllocs()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// BenchmarkStreaming feeds three agents streaming at 200 tokens/s each for
// 10 s of simulated time through the event bridge, drawing a frame every
// 1/60 s, and checks that no token is lost. It reports the 99th percentile
// frame time (update of the frame's events plus the frame itself).
func BenchmarkStreaming(b *testing.B) {
	const (
		agentsN  = 3
		rate     = 200 // tokens per second per agent
		seconds  = 10
		fps      = 60
		perFrame = agentsN * rate / fps
	)
	var p99s []float64
	for b.Loop() {
		b.StopTimer()
		e := testEngine(b, 0)
		if err := e.SetMode("magi"); err != nil {
			b.Fatal(err)
		}
		m := New(testOptions(e))
		m.bus.frame = 0 // the benchmark draws its own frames
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
		drain(m)
		names := []string{"melchior", "balthasar", "casper"}
		var want [agentsN]strings.Builder
		for i, n := range names {
			a, _ := e.Agent(n)
			e.Emit(debate.TurnStarted{Entry: transcript.Entry{Turn: i + 1, Kind: transcript.KindReply, Speaker: n, Display: a.Label(), Model: a.Model, Status: transcript.StatusStreaming, Started: fixedNow}})
		}
		drain(m)
		frames := make([]time.Duration, 0, seconds*fps)
		tok := 0
		b.StartTimer()
		for f := 0; f < seconds*fps; f++ {
			start := time.Now()
			for k := 0; k < perFrame; k++ {
				i := tok % agentsN
				text := token(tok / agentsN)
				want[i].WriteString(text)
				e.Emit(debate.TextDelta{Turn: i + 1, Agent: names[i], Text: text})
				tok++
			}
			drain(m)
			_ = m.View()
			frames = append(frames, time.Since(start))
		}
		b.StopTimer()
		for i, n := range names {
			p := m.byName[n]
			en, _ := m.tr.Entry(i + 1)
			if p.answer.String() != want[i].String() || en.Text != want[i].String() {
				b.Fatalf("%s lost tokens: panel %d bytes, transcript %d, sent %d", n, len(p.answer.String()), len(en.Text), want[i].Len())
			}
		}
		slices.Sort(frames)
		p99s = append(p99s, float64(frames[len(frames)*99/100].Microseconds())/1000)
		m.Close()
		b.StartTimer()
	}
	slices.Sort(p99s)
	b.ReportMetric(p99s[len(p99s)/2], "p99-ms/frame")
}

// token is the k-th token of a streamed answer: words, with a paragraph
// break and some Markdown now and then.
func token(k int) string {
	switch {
	case k%60 == 59:
		return ".\n\n"
	case k%25 == 0:
		return " **bold**"
	case k%17 == 0:
		return " `code`"
	}
	return " word"
}
