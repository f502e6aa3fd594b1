package bench

import (
	"context"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
)

// gate stands between the members and their providers: it keeps the run
// under each provider's request and token rate limits. The cost cap is the
// engine's (a spend.Meter every question's engine shares).
type gate struct {
	limiters map[string]*limiter
}

func newGate(limits map[string]config.RateLimit) *gate {
	g := &gate{limiters: map[string]*limiter{}}
	for name, l := range limits {
		if l.RequestsPerMinute > 0 || l.TokensPerMinute > 0 {
			g.limiters[name] = &limiter{rpm: l.RequestsPerMinute, tpm: l.TokensPerMinute}
		}
	}
	return g
}

// estimate is a call's size for the token-rate limit: its prompt at 2
// bytes a token (real tokenizers average about 4) and its max_tokens.
func estimate(req providers.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + 8
	}
	return n/2 + 16 + req.MaxTokens
}

// unpriced lists the models of agents that have no price: a cost cap
// cannot bound their calls.
func unpriced(cfg *config.Config, agents []*debate.Agent) []string {
	var out []string
	for _, a := range agents {
		if _, known := cfg.Cost(a.Model, providers.Usage{InputTokens: 1, OutputTokens: 1}); !known {
			out = append(out, a.Model)
		}
	}
	return out
}

// gated is one member's provider: its calls wait for the provider's
// rate limits.
type gated struct {
	inner providers.Provider
	g     *gate
}

func (p *gated) Name() string { return p.inner.Name() }

func (p *gated) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	lim := p.g.limiters[p.inner.Name()]
	if lim != nil {
		if err := lim.wait(ctx, estimate(req)); err != nil {
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
	return p.inner.Stream(ctx, req)
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
