package tui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// runawayShapes are the ways a looping model runs away: the same paragraph
// again and again (many blocks), the same line without a blank line
// between (one block that never ends), and one line that never ends.
var runawayShapes = []struct {
	name, unit string
}{
	{"paragraphs", "I will now repeat the plan: measure the **queue**, then the `consumer`, then the queue again.\n\n"},
	{"lines", "- I will now repeat the plan: measure the queue, then the consumer, then the queue again.\n"},
	{"oneline", "I will now repeat the plan: measure the queue, then the consumer, then the queue again. "},
}

// BenchmarkRunawayAnswer streams one answer of 1 MB and of 10 MB (a model
// looping) into a 100×30 console following it, in 64-byte deltas, drawing a
// frame every 16 KB (the bus merges a frame's deltas: 10 MB in 20 s at 30
// frames a second), then
// finishes the turn and draws it. It reports the process CPU of the whole
// run (s-cpu; the cost must grow linearly with the answer: 10 MB ≤ ~10× 1 MB
// and ≤ ~5 s) and the largest live heap seen at a frame (MB-heap; ≤ ~150
// MB at 10 MB: only what is visible is kept styled). Every byte must reach
// the panel and the transcript.
func BenchmarkRunawayAnswer(b *testing.B) {
	for _, shape := range runawayShapes {
		for _, mb := range []int{1, 10} {
			b.Run(fmt.Sprintf("%s/%dMB", shape.name, mb), func(b *testing.B) {
				var cpu, heap float64
				for b.Loop() {
					c, h := runaway(b, shape.unit, mb<<20)
					cpu, heap = max(cpu, c), max(heap, h)
				}
				b.ReportMetric(cpu, "s-cpu")
				b.ReportMetric(heap, "MB-heap")
			})
		}
	}
}

// runaway runs one runaway answer of size bytes made of unit and returns
// the process CPU seconds it took and the largest heap in use at a frame.
func runaway(b *testing.B, unit string, size int) (cpu, heapMB float64) {
	b.StopTimer()
	e := testEngine(b, 0)
	m := New(testOptions(e))
	defer m.Close()
	m.bus.frame = 0 // the benchmark draws its own frames
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	drain(m)
	a, _ := e.Agent("gemini")
	e.Emit(debate.TurnStarted{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: a.Name, Display: a.Label(), Model: a.Model, Status: transcript.StatusStreaming, Started: fixedNow}})
	drain(m)
	m.View()
	text := strings.Repeat(unit, size/len(unit)+1)[:size]
	runtime.GC()
	b.StartTimer()
	c0 := cpuTime()
	var peak uint64
	var ms runtime.MemStats
	const delta, frame = 64, 16 << 10
	for at := 0; at < len(text); at += delta {
		e.Emit(debate.TextDelta{Turn: 1, Agent: a.Name, Text: text[at:min(at+delta, len(text))]})
		if (at+delta)%frame == 0 || at+delta >= len(text) {
			drain(m)
			_ = m.View()
			if (at+delta)%(frame*16) == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	}
	e.Emit(debate.TurnFinished{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: a.Name, Display: a.Label(), Model: a.Model, Status: transcript.StatusComplete, Text: text, Started: fixedNow, Finished: fixedNow, Usage: providers.Usage{OutputTokens: size / 4}}})
	drain(m)
	_ = m.View()
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapInuse)
	cpu = (cpuTime() - c0).Seconds()
	b.StopTimer()
	en, _ := m.tr.Entry(1)
	if p := m.byName[a.Name]; p.answer.String() != text || en.Text != text {
		b.Fatalf("the answer lost bytes: panel %d, transcript %d, sent %d", len(p.answer.String()), len(en.Text), len(text))
	}
	b.StartTimer()
	return cpu, float64(peak) / (1 << 20)
}
