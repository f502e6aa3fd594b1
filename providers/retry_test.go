package providers

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"
)

// scripted is a Provider whose attempts follow a script: each attempt
// either fails at Stream, or streams some deltas and then ends with err.
type scripted struct {
	mu       sync.Mutex
	attempts []attempt
	calls    int
}

type attempt struct {
	openErr error
	deltas  []string
	err     error
}

func (p *scripted) Name() string { return "scripted" }

func (p *scripted) Stream(ctx context.Context, _ Request) (Stream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.attempts[min(p.calls, len(p.attempts)-1)]
	p.calls++
	if a.openErr != nil {
		return nil, a.openErr
	}
	return &scriptedStream{deltas: a.deltas, err: a.err}, nil
}

func (p *scripted) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

type scriptedStream struct {
	deltas []string
	i      int
	err    error
	cur    string
	closed bool
}

func (s *scriptedStream) Next() bool {
	if s.i < len(s.deltas) {
		s.cur = s.deltas[s.i]
		s.i++
		return true
	}
	return false
}
func (s *scriptedStream) Delta() string { return s.cur }
func (s *scriptedStream) Err() error {
	if s.i < len(s.deltas) {
		return nil
	}
	return s.err
}
func (s *scriptedStream) Result() Result { return Result{Usage: Usage{OutputTokens: len(s.deltas)}} }
func (s *scriptedStream) Close() error   { s.closed = true; return nil }

func statusErr(status int) *Error {
	return &Error{Provider: "scripted", Kind: KindForStatus(status), Status: status, Message: http.StatusText(status)}
}

type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func drain(s Stream, err error) (string, error) {
	if err != nil {
		return "", err
	}
	defer s.Close()
	var text string
	for s.Next() {
		text += s.Delta()
	}
	return text, s.Err()
}

func TestRetryAtMostMaxTimes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a    attempt
	}{
		{"at Stream", attempt{openErr: statusErr(503)}},
		{"at first Next", attempt{err: statusErr(503)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &scripted{attempts: []attempt{tc.a}}
			rec := &recorder{}
			var notices []RetryNotice
			rp := WithRetry(p, RetryPolicy{Sleep: rec.sleep})
			_, err := drain(rp.Stream(context.Background(), Request{OnRetry: func(n RetryNotice) { notices = append(notices, n) }}))
			if pe, ok := AsError(err); !ok || pe.Status != 503 {
				t.Fatalf("err = %v, want the last 503", err)
			}
			if p.count() != 1+DefaultMaxRetries {
				t.Fatalf("attempts = %d, want %d", p.count(), 1+DefaultMaxRetries)
			}
			if len(rec.waits) != DefaultMaxRetries || len(notices) != DefaultMaxRetries {
				t.Fatalf("waits = %v, notices = %d", rec.waits, len(notices))
			}
			for i, n := range notices {
				if n.Attempt != i+1 || n.Wait != rec.waits[i] || n.Err == nil {
					t.Errorf("notice %d = %+v", i, n)
				}
			}
		})
	}
}

func TestRetryConfiguredMax(t *testing.T) {
	t.Parallel()
	p := &scripted{attempts: []attempt{{openErr: statusErr(500)}}}
	rec := &recorder{}
	_, _ = drain(WithRetry(p, RetryPolicy{Max: 1, Sleep: rec.sleep}).Stream(context.Background(), Request{}))
	if p.count() != 2 {
		t.Fatalf("attempts = %d, want 2", p.count())
	}
	p = &scripted{attempts: []attempt{{openErr: statusErr(500)}}}
	_, _ = drain(WithRetry(p, RetryPolicy{Max: -1, Sleep: rec.sleep}).Stream(context.Background(), Request{}))
	if p.count() != 1 {
		t.Fatalf("attempts with Max -1 = %d, want 1", p.count())
	}
}

func TestRetryNeverOnAuthOrBadRequest(t *testing.T) {
	t.Parallel()
	for _, e := range []*Error{
		statusErr(401), statusErr(403), statusErr(400), statusErr(404),
		{Kind: KindMissingKey, Message: "no key"},
		{Kind: KindAuth, Status: 400, Message: "API key not valid"},
	} {
		for _, a := range []attempt{{openErr: e}, {err: e}} {
			p := &scripted{attempts: []attempt{a, {deltas: []string{"should not happen"}}}}
			rec := &recorder{}
			_, err := drain(WithRetry(p, RetryPolicy{Sleep: rec.sleep}).Stream(context.Background(), Request{}))
			if !errors.Is(err, e) {
				t.Errorf("%v: err = %v", e, err)
			}
			if p.count() != 1 || len(rec.waits) != 0 {
				t.Errorf("%v: attempts = %d, waits = %v; want 1 and none", e, p.count(), rec.waits)
			}
		}
	}
}

func TestRetryNotAfterTextWasDelivered(t *testing.T) {
	t.Parallel()
	cut := &Error{Kind: KindNetwork, Message: "connection closed"}
	p := &scripted{attempts: []attempt{{deltas: []string{"half ", "an answer"}, err: cut}, {deltas: []string{"again"}}}}
	rec := &recorder{}
	text, err := drain(WithRetry(p, RetryPolicy{Sleep: rec.sleep}).Stream(context.Background(), Request{}))
	if text != "half an answer" || !errors.Is(err, cut) {
		t.Fatalf("text = %q, err = %v", text, err)
	}
	if p.count() != 1 || len(rec.waits) != 0 {
		t.Fatalf("attempts = %d, waits = %v", p.count(), rec.waits)
	}
}

func TestRetryRecoversAndKeepsResult(t *testing.T) {
	t.Parallel()
	p := &scripted{attempts: []attempt{{openErr: statusErr(429)}, {err: statusErr(529)}, {deltas: []string{"a", "b"}}}}
	rec := &recorder{}
	s, err := WithRetry(p, RetryPolicy{Sleep: rec.sleep}).Stream(context.Background(), Request{})
	text, err := drain(s, err)
	if err != nil || text != "ab" || p.count() != 3 {
		t.Fatalf("text = %q, err = %v, attempts = %d", text, err, p.count())
	}
	if s.Result().Usage.OutputTokens != 2 {
		t.Errorf("result = %+v", s.Result())
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	e := statusErr(429)
	e.RetryAfter = 7 * time.Second
	p := &scripted{attempts: []attempt{{openErr: e}, {deltas: []string{"ok"}}}}
	rec := &recorder{}
	if _, err := drain(WithRetry(p, RetryPolicy{Sleep: rec.sleep}).Stream(context.Background(), Request{})); err != nil {
		t.Fatal(err)
	}
	if len(rec.waits) != 1 || rec.waits[0] != 7*time.Second {
		t.Fatalf("waits = %v, want [7s]", rec.waits)
	}

	// A server asking for longer than MaxRetryAfter gets its error back.
	e.RetryAfter = MaxRetryAfter + time.Second
	p = &scripted{attempts: []attempt{{openErr: e}, {deltas: []string{"ok"}}}}
	if _, err := drain(WithRetry(p, RetryPolicy{Sleep: rec.sleep}).Stream(context.Background(), Request{})); !errors.Is(err, e) {
		t.Fatalf("err = %v, want the 429", err)
	}
}

func TestRetryBackoffIsCappedWithFullJitter(t *testing.T) {
	t.Parallel()
	pol := RetryPolicy{Base: time.Second, Cap: 4 * time.Second, Rand: func() float64 { return 0.999999 }}.withDefaults()
	var got []time.Duration
	for attempt := 1; attempt <= 8; attempt++ {
		got = append(got, pol.backoff(attempt).Round(time.Millisecond))
	}
	want := []time.Duration{1, 2, 4, 4, 4, 4, 4, 4}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("backoffs = %v, want %v seconds", got, want)
		}
	}
	pol.Rand = func() float64 { return 0 }
	if d := pol.backoff(3); d != 0 {
		t.Fatalf("jitter 0 gave %v, want 0 (full jitter)", d)
	}
	pol = RetryPolicy{}.withDefaults()
	if d := pol.backoff(1000); d > DefaultRetryCap || d < 0 {
		t.Fatalf("huge attempt gave %v", d)
	}
}

func TestRetryNoRetryAfterCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &scripted{attempts: []attempt{{openErr: statusErr(503)}, {deltas: []string{"x"}}}}
	rec := &recorder{}
	_, err := drain(WithRetry(p, RetryPolicy{Sleep: rec.sleep}).Stream(ctx, Request{}))
	if KindOf(err) != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
	if p.count() != 1 || len(rec.waits) != 0 {
		t.Fatalf("attempts = %d, waits = %v", p.count(), rec.waits)
	}
}

func TestRetryCancelDuringWaitReturnsPromptly(t *testing.T) {
	t.Parallel()
	e := statusErr(429)
	e.RetryAfter = time.Minute // a real timer that must not be waited out
	p := &scripted{attempts: []attempt{{openErr: e}, {deltas: []string{"x"}}}}
	ctx, cancel := context.WithCancel(context.Background())
	notified := make(chan struct{})
	req := Request{OnRetry: func(RetryNotice) { close(notified) }}
	go func() {
		<-notified // the policy is about to wait a minute: cancel now
		cancel()
	}()
	start := time.Now()
	_, err := drain(WithRetry(p, RetryPolicy{}).Stream(ctx, req))
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("returned after %v", d)
	}
	if KindOf(err) != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
	if p.count() != 1 {
		t.Fatalf("attempts = %d, want 1", p.count())
	}
}

func TestRetryCloseAbortsWait(t *testing.T) {
	t.Parallel()
	e := statusErr(503)
	e.RetryAfter = time.Minute
	p := &scripted{attempts: []attempt{{err: e}, {deltas: []string{"x"}}}}
	notified := make(chan struct{})
	s, err := WithRetry(p, RetryPolicy{}).Stream(context.Background(), Request{OnRetry: func(RetryNotice) { close(notified) }})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-notified // the policy is about to wait a minute: close now
		_ = s.Close()
	}()
	start := time.Now()
	if s.Next() {
		t.Fatal("got a delta after Close")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("Next returned after %v", d)
	}
	if KindOf(s.Err()) != KindCanceled {
		t.Fatalf("err = %v", s.Err())
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{map[string]string{"Retry-After": "1"}, time.Second},
		{map[string]string{"Retry-After": "2.5"}, 2500 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "NaN"}, 0},
		{map[string]string{}, 0},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := ParseRetryAfter(h, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.header, got, tc.want)
		}
	}
}
