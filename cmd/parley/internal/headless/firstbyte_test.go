package headless

import (
	"context"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/providers"
)

// pacedProvider streams chunks with a pause before each, and notes when
// the first one was handed to the engine.
type pacedProvider struct {
	chunks []string
	pause  time.Duration
	first  chan time.Time // receives the first chunk's time
}

func (p *pacedProvider) Name() string { return "paced" }

func (p *pacedProvider) Stream(ctx context.Context, _ providers.Request) (providers.Stream, error) {
	return &pacedStream{p: p, ctx: ctx, i: -1}, nil
}

type pacedStream struct {
	p   *pacedProvider
	ctx context.Context
	i   int
	err error
}

func (s *pacedStream) Next() bool {
	if s.i+1 >= len(s.p.chunks) {
		return false
	}
	t := time.NewTimer(s.p.pause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
		s.err = s.ctx.Err()
		return false
	}
	s.i++
	if s.i == 0 {
		s.p.first <- time.Now()
	}
	return true
}

func (s *pacedStream) Delta() string { return s.p.chunks[s.i] }
func (s *pacedStream) Err() error    { return s.err }
func (s *pacedStream) Result() providers.Result {
	return providers.Result{Usage: providers.Usage{InputTokens: 10, OutputTokens: 10}}
}
func (s *pacedStream) Close() error { return nil }

// firstWrite notes when its first byte was written.
type firstWrite struct {
	once sync.Once
	at   chan time.Time
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { w.at <- time.Now() })
	return len(p), nil
}

func pacedEngine(tb testing.TB, p providers.Provider) *debate.Engine {
	tb.Helper()
	cfg := &config.Config{ModeList: modes.All(),
		Agents: []config.AgentSpec{{Name: "chatgpt", Display: "ChatGPT", Provider: "paced", Model: "fake-model"}},
		Modes:  config.ModesConfig{Mention: config.MentionConfig{Agents: []string{"chatgpt"}}},
	}
	e, err := debate.NewEngine(cfg, []*debate.Agent{{AgentSpec: cfg.Agents[0], Provider: p}}, "mention")
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkHeadlessFirstByte: a fake provider sends 10 chunks 50 ms apart;
// the metric is the time from the first chunk leaving the provider to the
// first byte on stdout (goal: under 5 ms).
func BenchmarkHeadlessFirstByte(b *testing.B) {
	chunks := []string{"The", " answer", " streams", " word", " by", " word", " as", " it", " comes", "."}
	var lags []time.Duration
	for b.Loop() {
		prov := &pacedProvider{chunks: chunks, pause: 50 * time.Millisecond, first: make(chan time.Time, 1)}
		out := &firstWrite{at: make(chan time.Time, 1)}
		e := pacedEngine(b, prov)
		p := New(Options{Out: out, Err: io.Discard, Format: Text, Style: Conversation})
		if err := Run(context.Background(), e, p, []string{"@chatgpt go"}, nil); err != nil {
			b.Fatal(err)
		}
		lags = append(lags, (<-out.at).Sub(<-prov.first))
	}
	slices.Sort(lags)
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "ms-first-byte-p50")
	b.ReportMetric(float64(lags[len(lags)-1].Microseconds())/1000, "ms-first-byte-max")
}

// The first chunk reaches the output before the second leaves the provider.
func TestFirstChunkIsPrintedAtOnce(t *testing.T) {
	t.Parallel()
	prov := &pacedProvider{chunks: []string{"Hello", " there"}, pause: time.Millisecond, first: make(chan time.Time, 1)}
	e := pacedEngine(t, prov)
	var mu sync.Mutex
	var writes []string
	out := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		writes = append(writes, string(p))
		return len(p), nil
	})
	p := New(Options{Out: out, Err: io.Discard, Format: Text, Style: Conversation})
	if err := Run(context.Background(), e, p, []string{"@chatgpt go"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(writes) < 3 || writes[0] != "[ChatGPT]: " || writes[1] != "Hello" {
		t.Fatalf("writes %q: the first chunk was not written on its own", writes)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
