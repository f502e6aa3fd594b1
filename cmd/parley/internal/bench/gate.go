package bench

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

// ErrBudget stops a run: the next call could pass --max-cost.
var ErrBudget = errors.New("the next call could pass --max-cost")

// gate stands between the members and their providers: it keeps the run
// under --max-cost (a call starts only when its worst case still fits) and
// under each provider's request and token rate limits.
type gate struct {
	cfg     *debate.Config
	maxCost float64 // 0: no cap

	mu       sync.Mutex
	spent    float64 // priced from the usage of finished calls
	reserved float64 // worst cases of calls in flight
	limiters map[string]*limiter
}

func newGate(cfg *debate.Config, maxCost float64, limits map[string]debate.RateLimit) *gate {
	g := &gate{cfg: cfg, maxCost: maxCost, limiters: map[string]*limiter{}}
	for name, l := range limits {
		if l.RequestsPerMinute > 0 || l.TokensPerMinute > 0 {
			g.limiters[name] = &limiter{rpm: l.RequestsPerMinute, tpm: l.TokensPerMinute}
		}
	}
	return g
}

// Spent is what finished calls cost.
func (g *gate) Spent() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spent
}

// estimate is a call's worst case: its prompt at 2 bytes a token (real
// tokenizers average about 4) and every one of its max_tokens, priced at
// the uncached input rate.
func estimate(req providers.Request) providers.Usage {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + 8
	}
	return providers.Usage{InputTokens: n/2 + 16, OutputTokens: req.MaxTokens}
}

func (g *gate) reserve(cost float64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.maxCost > 0 && g.spent+g.reserved+cost > g.maxCost {
		return false
	}
	g.reserved += cost
	return true
}

func (g *gate) settle(reserved float64, model string, u providers.Usage) {
	cost, _ := g.cfg.Cost(model, u) // unpriced models are refused up front under a cap
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reserved -= reserved
	g.spent += cost
}

// worstCost prices a call's worst case: every prompt token at the dearer
// of the input and cache-write prices, every max_tokens token as output.
func (g *gate) worstCost(model string, req providers.Request) float64 {
	u := estimate(req)
	plain, _ := g.cfg.Cost(model, u)
	u.CacheWriteTokens = u.InputTokens
	written, _ := g.cfg.Cost(model, u)
	return max(plain, written)
}

// unpriced lists the models of agents that have no price: a cost cap
// cannot bound their calls.
func unpriced(cfg *debate.Config, agents []*debate.Agent) []string {
	var out []string
	for _, a := range agents {
		if _, known := cfg.Cost(a.Model, providers.Usage{InputTokens: 1, OutputTokens: 1}); !known {
			out = append(out, a.Model)
		}
	}
	return out
}

// gated is one member's provider for one question: a refused call cancels
// that question (it is not scored) and the run starts no new one.
type gated struct {
	inner  providers.Provider
	g      *gate
	model  string
	refuse func()
}

func (p *gated) Name() string { return p.inner.Name() }

func (p *gated) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	worst := p.g.worstCost(p.model, req)
	if !p.g.reserve(worst) {
		p.refuse()
		return nil, &providers.Error{Provider: p.inner.Name(), Kind: providers.KindCanceled, Message: ErrBudget.Error(), Err: ErrBudget}
	}
	lim := p.g.limiters[p.inner.Name()]
	if lim != nil {
		if err := lim.wait(ctx, estimate(req).Total()); err != nil {
			p.g.settle(worst, p.model, providers.Usage{})
			return nil, err
		}
		onRetry := req.OnRetry
		req.OnRetry = func(n providers.RetryNotice) {
			if providers.KindOf(n.Err) == providers.KindRateLimit {
				lim.pause(n.Wait) // every worker waits out a 429's Retry-After
			}
			if onRetry != nil {
				onRetry(n)
			}
		}
	}
	s, err := p.inner.Stream(ctx, req)
	if err != nil {
		p.g.settle(worst, p.model, providers.Usage{})
		return nil, err
	}
	return &gatedStream{Stream: s, settle: func(u providers.Usage) { p.g.settle(worst, p.model, u) }}, nil
}

type gatedStream struct {
	providers.Stream
	once   sync.Once
	settle func(providers.Usage)
}

func (s *gatedStream) Next() bool {
	if s.Stream.Next() {
		return true
	}
	s.once.Do(func() { s.settle(s.Stream.Result().Usage) })
	return false
}

func (s *gatedStream) Close() error {
	s.once.Do(func() { s.settle(s.Stream.Result().Usage) })
	return s.Stream.Close()
}

// limiter spaces one provider's calls: requests per minute, estimated
// tokens per minute (a bucket that refills continuously), and a pause
// after a rate-limit answer.
type limiter struct {
	rpm, tpm int

	mu      sync.Mutex
	nextReq time.Time
	tokens  float64
	filled  time.Time
	paused  time.Time
}

func (l *limiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := time.Now().Add(d); until.After(l.paused) {
		l.paused = until
	}
}

func (l *limiter) wait(ctx context.Context, tokens int) error {
	for {
		d := l.take(time.Now(), tokens)
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// take consumes a request and its tokens at now, or says how long to wait.
func (l *limiter) take(now time.Time, tokens int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.paused) {
		return l.paused.Sub(now)
	}
	if l.rpm > 0 && now.Before(l.nextReq) {
		return l.nextReq.Sub(now)
	}
	if l.tpm > 0 {
		if l.filled.IsZero() {
			l.tokens, l.filled = float64(l.tpm), now
		}
		l.tokens = min(float64(l.tpm), l.tokens+now.Sub(l.filled).Minutes()*float64(l.tpm))
		l.filled = now
		need := min(float64(tokens), float64(l.tpm)) // a call bigger than the bucket waits for a full one
		if l.tokens < need {
			return time.Duration((need - l.tokens) / float64(l.tpm) * float64(time.Minute))
		}
		l.tokens -= float64(tokens)
	}
	if l.rpm > 0 {
		l.nextReq = now.Add(time.Minute / time.Duration(l.rpm))
	}
	return 0
}
