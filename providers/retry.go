package providers

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Retry defaults (SPEC §10: at most 3 retries, backoff with jitter).
const (
	DefaultMaxRetries = 3
	DefaultRetryBase  = 500 * time.Millisecond
	DefaultRetryCap   = 20 * time.Second
	// MaxRetryAfter is the longest server-requested wait the policy honours;
	// a server asking for more gets its error reported instead of a frozen
	// panel.
	MaxRetryAfter = 2 * time.Minute
)

// RetryPolicy says how WithRetry retries. The zero value is the default.
type RetryPolicy struct {
	// Max is the number of retries after the first attempt: 0 means
	// DefaultMaxRetries, a negative value means none.
	Max int
	// Base is the first backoff step, doubled on each retry; Cap bounds it.
	Base, Cap time.Duration
	// Sleep waits d or until ctx ends (then it returns ctx's error); nil
	// uses a real timer. Tests inject it to record waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0,1) for the jitter; nil uses math/rand.
	Rand func() float64
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.Max == 0:
		p.Max = DefaultMaxRetries
	case p.Max < 0:
		p.Max = 0
	}
	if p.Base <= 0 {
		p.Base = DefaultRetryBase
	}
	if p.Cap <= 0 {
		p.Cap = DefaultRetryCap
	}
	if p.Sleep == nil {
		p.Sleep = sleepContext
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// backoff is the wait before retry number attempt (1-based) when the server
// did not say: full jitter over an exponentially growing, capped window.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	window := float64(p.Base) * math.Pow(2, float64(attempt-1))
	window = min(window, float64(p.Cap))
	r := p.Rand()
	if r < 0 || r >= 1 || math.IsNaN(r) {
		r = 0.5
	}
	return time.Duration(r * window)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WithRetry wraps p so that a request failing with a retryable error
// (rate_limit, server, network) is tried again, but only while no text has
// reached the caller: a retry after text would duplicate or contradict it.
// Errors at Stream and at the first Next both count. Auth, missing key and
// bad requests are never retried, nor is anything after ctx ends.
func WithRetry(p Provider, pol RetryPolicy) Provider {
	return &retrying{inner: p, pol: pol.withDefaults()}
}

type retrying struct {
	inner Provider
	pol   RetryPolicy
}

func (r *retrying) Name() string { return r.inner.Name() }

func (r *retrying) Stream(ctx context.Context, req Request) (Stream, error) {
	// Close cancels this context, which aborts a retry wait in progress.
	ctx, cancel := context.WithCancel(ctx)
	rs := &retryStream{r: r, ctx: ctx, cancel: cancel, req: req}
	if err := rs.open(nil); err != nil {
		cancel()
		return nil, err
	}
	return rs, nil
}

// retryStream re-opens the inner stream while nothing was delivered.
type retryStream struct {
	r        *retrying
	ctx      context.Context
	cancel   context.CancelFunc
	req      Request
	retries  int  // retries done so far
	gotDelta bool // text reached the caller: no more retries
	err      error
	// retried is what the replaced attempts consumed (Charge): an attempt
	// that failed after the server answered still billed its prompt.
	retried Usage

	mu  sync.Mutex // guards cur against a concurrent Close
	cur Stream
}

func (s *retryStream) current() Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (s *retryStream) setCurrent(st Stream) {
	s.mu.Lock()
	s.cur = st
	s.mu.Unlock()
}

// open starts the inner stream, retrying failures of Stream itself. prev is
// the error that made the caller come back (nil on the first attempt).
func (s *retryStream) open(prev error) error {
	if prev != nil {
		if err := s.wait(prev); err != nil {
			return err
		}
	}
	for {
		st, err := s.r.inner.Stream(s.ctx, s.req)
		if err == nil {
			s.setCurrent(st)
			if s.ctx.Err() != nil { // closed meanwhile
				_ = st.Close()
			}
			return nil
		}
		if st != nil {
			_ = st.Close()
		}
		if werr := s.wait(err); werr != nil {
			return werr
		}
	}
}

// wait decides whether err may be retried and sleeps before the retry; it
// returns the error to give up with, or nil to try again.
func (s *retryStream) wait(err error) error {
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		if KindOf(err) == KindCanceled {
			return err // the attempt itself says so; no retry was pending
		}
		return canceledError(s.r.Name(), ctxErr, err)
	}
	pe, ok := AsError(err)
	if !ok || !pe.Retryable() || s.retries >= s.r.pol.Max {
		return err
	}
	if pe.RetryAfter > MaxRetryAfter {
		return err
	}
	s.retries++
	wait := pe.RetryAfter
	if wait <= 0 {
		wait = s.r.pol.backoff(s.retries)
	}
	if s.req.OnRetry != nil {
		s.req.OnRetry(RetryNotice{Attempt: s.retries, Wait: wait, Err: err})
	}
	if serr := s.r.pol.Sleep(s.ctx, wait); serr != nil || s.ctx.Err() != nil {
		cause := s.ctx.Err()
		if cause == nil {
			cause = serr
		}
		return canceledError(s.r.Name(), cause, err)
	}
	return nil
}

func canceledError(provider string, cause, last error) error {
	kind := KindCanceled
	if !errors.Is(cause, context.Canceled) {
		kind = KindNetwork // the caller's deadline passed while waiting
	}
	msg := "cancelled"
	if last != nil {
		msg = "cancelled while waiting to retry: " + last.Error()
	}
	if kind != KindCanceled {
		msg = "deadline exceeded while waiting to retry"
	}
	return &Error{Provider: provider, Kind: kind, Message: msg, Err: cause}
}

func (s *retryStream) Next() bool {
	for {
		cur := s.current()
		if cur == nil || s.err != nil {
			return false
		}
		if cur.Next() {
			s.gotDelta = true
			return true
		}
		err := cur.Err()
		if err == nil || s.gotDelta {
			return false
		}
		// Nothing was delivered: the failed attempt may be replaced.
		if werr := s.wait(err); werr != nil {
			s.err = werr
			return false
		}
		s.retried = s.retried.Add(Charge(s.req, cur.Result(), Streamed{}, err))
		_ = cur.Close()
		if oerr := s.open(nil); oerr != nil {
			s.err = oerr
			return false
		}
	}
}

func (s *retryStream) Delta() string {
	if cur := s.current(); cur != nil && s.err == nil {
		return cur.Delta()
	}
	return ""
}

func (s *retryStream) Err() error {
	if s.err != nil {
		return s.err
	}
	if cur := s.current(); cur != nil {
		return cur.Err()
	}
	return nil
}

// Result is the last attempt's, with what the attempts it replaced
// consumed in Retried.
func (s *retryStream) Result() Result {
	var res Result
	if cur := s.current(); cur != nil {
		res = cur.Result()
	}
	res.Retried = res.Retried.Add(s.retried)
	return res
}

// Close releases the current attempt and aborts a retry wait; it may be
// called from another goroutine and more than once.
func (s *retryStream) Close() error {
	s.cancel()
	if cur := s.current(); cur != nil {
		return cur.Close()
	}
	return nil
}

// ParseRetryAfter reads the wait a server asks for: retry-after-ms
// (Anthropic, OpenAI), else Retry-After as seconds or an HTTP date.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e6 || math.IsNaN(secs) {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
