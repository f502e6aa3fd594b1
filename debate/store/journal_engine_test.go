package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/lease"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// pausable streams "half " at once, then the rest when gate closes: a
// holder whose process was stopped between two chunks.
type pausable struct {
	sent chan struct{} // closed once the first chunk was read
	gate chan struct{}
}

func (p *pausable) Name() string { return "demo" }

func (p *pausable) Stream(ctx context.Context, _ providers.Request) (providers.Stream, error) {
	return &pausedStream{p: p, ctx: ctx}, nil
}

type pausedStream struct {
	p    *pausable
	ctx  context.Context
	i    int
	err  error
	text string
}

func (s *pausedStream) Next() bool {
	switch s.i {
	case 0:
		s.text = "half "
	case 1:
		close(s.p.sent)
		select {
		case <-s.p.gate:
		case <-s.ctx.Done():
			s.err = s.ctx.Err()
			return false
		}
		s.text = "and whole"
	default:
		return false
	}
	s.i++
	return true
}

func (s *pausedStream) Delta() string { return s.text }
func (s *pausedStream) Err() error    { return s.err }
func (s *pausedStream) Close() error  { return nil }
func (s *pausedStream) Result() providers.Result {
	return providers.Result{Usage: providers.Usage{InputTokens: 10, OutputTokens: 3}, FinishReason: "stop"}
}

// An engine whose lease is overtaken mid-answer (its process paused past
// the lease, another writer took the session and settled the answer as
// partial): when it wakes and its answer completes, the exchange ends
// with the takeover, the answer is shown partial, not complete, and on
// disk it stays as the taker settled it.
func TestJournalPausedEngineKeepsNothingComplete(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := &pausable{sent: make(chan struct{}), gate: make(chan struct{})}
	spec := config.AgentSpec{Name: "a", Display: "A", Provider: "demo", Model: "demo-a"}
	cfg := &config.Config{DefaultMode: "mention", Source: "test", ModeList: modes.All(), Agents: []config.AgentSpec{spec}}
	cfg.Modes.Mention.Agents = []string{"a"}
	cfg.Pricing = map[string]config.Price{"demo-a": {Input: 3, Output: 15}}
	e, err := debate.NewEngine(cfg, []*debate.Agent{{AgentSpec: spec, Provider: p}}, "mention")
	if err != nil {
		t.Fatal(err)
	}
	rec := st.Record()
	rec.Attach(e, "ask")
	e.Start(false)
	id := e.Info().ID

	result := make(chan error, 1)
	go func() { result <- e.Submit(ctx, "@a go") }()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	select {
	case <-p.sent:
	case <-deadline.C:
		t.Fatal("the answer never started")
	}
	// Its checkpoint: "half " (the recorder reads events on its own queue).
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for {
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
		if rowAt(t, st, id, 2).Text == "half " {
			break
		}
		select {
		case <-poll.C:
		case <-deadline.C:
			t.Fatal("the first chunk was never checkpointed")
		}
	}
	lapse(t, st, id)
	b := newWriter(t, path, "console")
	release := b.lease(t, id)
	defer release()

	close(p.gate) // the paused process wakes
	var err2 error
	select {
	case err2 = <-result:
	case <-deadline.C:
		t.Fatal("the woken exchange never ended")
	}
	var taken *lease.TakenOverError
	if !errors.As(err2, &taken) || taken.Door != "console" {
		t.Fatalf("the woken exchange ended with %v, want taken over by console", err2)
	}
	if !strings.Contains(err2.Error(), "while this process was paused; its last answer was kept as partial") {
		t.Errorf("the loss reads %q", err2)
	}
	if en, _ := e.History().Get(2); en.Status == transcript.StatusComplete {
		t.Errorf("the woken engine shows its answer complete: %+v", en)
	}
	got := rowAt(t, st, id, 2)
	if got.Status != transcript.StatusPartial || got.Text != "half " {
		t.Errorf("on disk the answer is %s %q, want partial %q", got.Status, got.Text, "half ")
	}
	// Cut, it is charged what it had cost when it was cut, estimated:
	// the prompt sent and the chunk streamed, at the model's price.
	if u := got.Usage; !u.Estimated || u.InputTokens == 0 || u.OutputTokens != 2 || u.PriceUnknown ||
		got.Cost != (float64(u.InputTokens)*3+float64(u.OutputTokens)*15)/1e6 {
		t.Errorf("the cut answer is charged $%g for %+v, want its estimate", got.Cost, u)
	}
}
