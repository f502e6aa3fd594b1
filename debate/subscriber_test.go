package debate

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/transcript"
)

// A lagging subscriber's merged deltas keep a structured answer's fields
// apart and in order, and keep the raw text whole.
func TestMergedDeltasKeepFieldsApart(t *testing.T) {
	t.Parallel()
	s := &subscriber{wake: make(chan struct{}, 1)}
	for _, d := range []TextDelta{
		{Turn: 1, Raw: `{"vote":"reject",`},
		{Turn: 1, Field: "reasoning", Text: "Thin ", Raw: `"reasoning":"Thin `},
		{Turn: 2, Text: "other turn"},
		{Turn: 1, Field: "reasoning", Text: "evidence.", Raw: `evidence.",`},
		{Turn: 1, Field: "summary", Text: "\n\nNo.", Raw: `"summary":"No."}`},
	} {
		s.push(d)
	}
	var got []TextDelta
	for _, ev := range s.queue {
		got = append(got, ev.event().(TextDelta))
	}
	want := []TextDelta{
		{Turn: 1, Field: "reasoning", Text: "Thin evidence.", Raw: `{"vote":"reject","reasoning":"Thin evidence.",`},
		{Turn: 2, Text: "other turn"},
		{Turn: 1, Field: "summary", Text: "\n\nNo.", Raw: `"summary":"No."}`},
	}
	if len(got) != len(want) {
		t.Fatalf("queue = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("delta %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A lagging subscriber merges a long answer's deltas without copying the
// text queued so far for each (it did: a string a delta, quadratic in the
// lag): merging counts well under one allocation a delta, and what is
// delivered is every delta's text and raw, in order, once.
func TestLaggingMergeAllocatesLessThanADelta(t *testing.T) { // not parallel: AllocsPerRun
	s := &subscriber{wake: make(chan struct{}, 1)}
	s.push(TurnStarted{Entry: transcript.Entry{Turn: 1, Speaker: "a"}}) // what the lagging sink is on
	const word = " word"
	var delta Event = TextDelta{Turn: 1, Agent: "a", Text: word, Raw: word} // boxed once: the engine's Emit boxes each
	pushes := 0
	push := func() {
		s.push(delta)
		pushes++
	}
	push() // the delta the others merge into
	if allocs := testing.AllocsPerRun(2000, push); allocs > 0.1 {
		t.Errorf("%.2f allocations a merged delta, want under 0.1", allocs)
	}
	if len(s.queue) != 2 {
		t.Fatalf("%d events queued, want the turn and one merged delta", len(s.queue))
	}
	d := s.queue[1].event().(TextDelta)
	if want := strings.Repeat(word, pushes); d.Text != want || d.Raw != want {
		t.Errorf("merged delta holds %d bytes of text and %d of raw, want %d each", len(d.Text), len(d.Raw), len(want))
	}
}

// A subscriber whose sink keeps up allocates nothing to deliver an event:
// no channel for a waiter nobody is, and the queue's one slot reused
// (issue 50: every streamed token of `parley ask` and of the door passes
// here, once for each subscriber). Counted, not timed; not parallel, as it
// counts the process's allocations.
func TestDeliveryToASinkThatKeepsUpAllocatesNothing(t *testing.T) {
	delivered := make(chan struct{}, 1)
	s := newSubscriber(func(Event) { delivered <- struct{}{} })
	defer s.close()
	var ev Event = TextDelta{Turn: 1, Text: "word"} // boxed once, as Emit does for every subscriber
	allocs := testing.AllocsPerRun(2000, func() {
		s.push(ev)
		<-delivered
	})
	if allocs != 0 {
		t.Errorf("%.2f allocations to deliver an event, want 0", allocs)
	}
}
