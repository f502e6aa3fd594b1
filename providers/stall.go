package providers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Stall defaults: a stream that sends nothing for this long has stalled.
// A reasoning model may think for minutes before its first byte, so it
// gets longer for that one wait (bounded by the whole request's timeout).
const (
	DefaultIdleTimeout               = 120 * time.Second
	DefaultReasoningFirstByteTimeout = 5 * time.Minute
)

// StallLimits says how long a stream may send nothing. Zero values take
// the defaults; FirstByte 0 is Idle, or DefaultReasoningFirstByteTimeout
// for a reasoning model.
type StallLimits struct {
	Idle      time.Duration
	FirstByte time.Duration
	// Setting names the configuration keys for the error ("providers.openai").
	Setting string
}

func (l StallLimits) idle() time.Duration {
	if l.Idle > 0 {
		return l.Idle
	}
	return DefaultIdleTimeout
}

func (l StallLimits) firstByte(info ModelInfo) time.Duration {
	switch {
	case l.FirstByte > 0:
		return l.FirstByte
	case info.Reasoning:
		return max(DefaultReasoningFirstByteTimeout, l.idle())
	}
	return l.idle()
}

// WithStallTimeout wraps p so that a stream sending nothing for the limit
// ends: the text so far is kept (the turn is partial) and the error says
// how long it waited and which setting to raise. A stalled member then no
// longer holds a whole council for the request's total timeout.
func WithStallTimeout(p Provider, lim StallLimits) Provider {
	return &stalling{inner: p, lim: lim}
}

type stalling struct {
	inner Provider
	lim   StallLimits
}

// stall is the cancel cause when the watchdog fires.
type stall struct {
	after     time.Duration
	firstByte bool
}

func (s *stall) Error() string { return "stalled" }

func (p *stalling) Name() string { return p.inner.Name() }

func (p *stalling) Stream(ctx context.Context, req Request) (Stream, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	first := p.lim.firstByte(req.Info)
	w := &watchdog{cancel: cancel}
	w.arm(first, true)
	st, err := p.inner.Stream(ctx, req)
	if err != nil {
		w.stop()
		err = p.explain(ctx, err)
		cancel(nil)
		return nil, err
	}
	return &stallStream{Stream: st, p: p, ctx: ctx, cancel: cancel, w: w}, nil
}

// explain replaces the error of a stream the watchdog ended with the stall.
func (p *stalling) explain(ctx context.Context, err error) error {
	var s *stall
	if err == nil || !errors.As(context.Cause(ctx), &s) {
		return err
	}
	what, key := "no bytes", "idle_timeout"
	if s.firstByte {
		what, key = "no first byte", "first_byte_timeout"
	}
	setting := "the provider's " + key
	if p.lim.Setting != "" {
		setting = p.lim.Setting + "." + key
	}
	return &Error{Provider: p.inner.Name(), Kind: KindTimeout,
		Message: fmt.Sprintf("%s for %s: the stream stalled and was ended (raise %s)", what, s.after, setting)}
}

// watchdog cancels the stream's context when its timer runs out. One
// timer is re-armed on every delta (hundreds a second): no allocation.
type watchdog struct {
	mu     sync.Mutex
	timer  *time.Timer
	cause  stall
	cancel context.CancelCauseFunc
}

func (w *watchdog) arm(d time.Duration, firstByte bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cause = stall{after: d, firstByte: firstByte}
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.fire)
		return
	}
	w.timer.Reset(d)
}

func (w *watchdog) fire() {
	w.mu.Lock()
	cause := w.cause
	w.mu.Unlock()
	w.cancel(&cause)
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

type stallStream struct {
	Stream
	p      *stalling
	ctx    context.Context
	cancel context.CancelCauseFunc
	w      *watchdog
	err    error
	done   bool
}

// Next re-arms the watchdog on every delta (the first one switches it
// from the first-byte limit to the idle one).
func (s *stallStream) Next() bool {
	if s.done {
		return false
	}
	if s.Stream.Next() {
		s.w.arm(s.p.lim.idle(), false)
		return true
	}
	s.done = true
	s.w.stop()
	s.err = s.p.explain(s.ctx, s.Stream.Err())
	return false
}

func (s *stallStream) Err() error {
	if s.done {
		return s.err
	}
	return s.Stream.Err()
}

func (s *stallStream) Close() error {
	s.w.stop()
	s.cancel(nil)
	return s.Stream.Close()
}
