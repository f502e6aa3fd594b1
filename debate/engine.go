package debate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// SessionInfo is a session's metadata.
type SessionInfo struct {
	ID      string            `json:"id"`
	Title   string            `json:"title"`
	Mode    string            `json:"mode"`
	Topic   string            `json:"topic,omitempty"`
	Created time.Time         `json:"created"`
	Parent  string            `json:"parent,omitempty"`  // forked from
	ForkAt  int               `json:"fork_at,omitempty"` // last turn copied from the parent
	State   map[string]string `json:"state,omitempty"`   // per-mode state, e.g. alternate.next
}

// NewSessionID returns a random 12-hex-digit id.
func NewSessionID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ErrBusy is returned when an exchange is submitted while another runs.
var ErrBusy = errors.New("agents are still answering (Esc cancels)")

// Engine runs one session: its history, its current mode and its events.
type Engine struct {
	Config *config.Config
	agents []*Agent // configuration order

	emitMu sync.Mutex
	subs   []*subscriber
	// appendMu makes appending an entry and announcing it one step, so new
	// entries reach the sinks in turn order (see appendAndAnnounce).
	appendMu sync.Mutex
	// spendMu makes reading the spend and announcing it one step, so the
	// last spend event is the latest spend (calls settle in parallel).
	spendMu sync.Mutex
	// journal numbers and keeps the turns when the session is shared
	// (journal.go); following are other processes' turns still streaming.
	journal   Journal
	followMu  sync.Mutex
	following map[int]transcript.Entry

	buildMu sync.Mutex // held while a mode is built (see modeNamed)
	// compactMu lets one caller at a time condense the history (compact).
	compactMu sync.Mutex

	priceHints sync.Map // models already hinted as unpriced (see hintPrice)

	// meter counts the spend against the session's cap and exchange the
	// running exchange's, both under mu (charge.go).
	meter    *spend.Meter
	exchange exchangeSpend
	// tooling is the members' native tools and the evidence ledger (nativetools.go).
	tooling tooling
	// hosting is the run's host and checkpoint policy (checkpoints.go).
	hosting hosting
	run     runPlan // the door's run of several exchanges (checkpointrun.go)

	mu      sync.Mutex
	info    SessionInfo
	history *transcript.History
	modes   map[string]Mode
	current string
	cancel  context.CancelFunc // of the exchange in flight
	busy    bool
	idle    chan struct{} // closed while no exchange runs
	// interrupted is when Interrupt last cancelled an exchange.
	interrupted time.Time

	now func() time.Time
}

// NewEngine builds an engine for a new session. agents must cover every
// agent of cfg, in configuration order.
func NewEngine(cfg *config.Config, agents []*Agent, mode string) (*Engine, error) {
	if mode == "" {
		mode = cfg.DefaultMode
	}
	if mode == "" {
		mode = cfg.ModeList.Default()
	}
	e := &Engine{Config: cfg, agents: agents, modes: map[string]Mode{}, history: transcript.NewHistory(nil), now: time.Now, idle: make(chan struct{}),
		meter: spend.NewMeter(cfg.BudgetUSD, 0)}
	close(e.idle)
	e.info = SessionInfo{ID: NewSessionID(), Mode: mode, Created: e.now(), State: map[string]string{}}
	if _, err := e.modeNamed(mode); err != nil {
		return nil, err
	}
	e.current = mode
	return e, nil
}

// Restore replaces the session with a saved one (resume or fork). It is
// refused while an exchange runs: the running turns would write their
// answers into the restored session's history.
func (e *Engine) Restore(info SessionInfo, entries []transcript.Entry) error {
	// buildMu keeps a mode build that began on the old session from being
	// cached after the swap.
	e.buildMu.Lock()
	defer e.buildMu.Unlock()
	if info.Mode == "" {
		info.Mode = e.Info().Mode
	}
	if info.State == nil {
		info.State = map[string]string{}
	}
	if _, err := e.buildMode(info.Mode); err != nil { // checked before anything changes
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.busy {
		return ErrBusy
	}
	e.info = info
	e.current = info.Mode
	e.history = transcript.NewHistory(entries)
	e.restoreEvidence(entries)
	e.modes = map[string]Mode{} // modes re-read their state from the session
	e.followMu.Lock()
	e.following = nil
	e.followMu.Unlock()
	return nil
}

// Subscribe adds a consumer of every later event and returns the function
// that removes it. Each subscriber has its own queue and goroutine, so a slow
// one (a browser on a bad link) never stalls the stream or another
// subscriber: while it lags, its pending text deltas of one turn are merged;
// every other event reaches it in order. Wait drains the queues.
func (e *Engine) Subscribe(s Sink) (unsubscribe func()) {
	sub := newSubscriber(s)
	e.emitMu.Lock()
	e.subs = append(e.subs, sub)
	e.emitMu.Unlock()
	return func() {
		e.emitMu.Lock()
		e.subs = slices.DeleteFunc(e.subs, func(x *subscriber) bool { return x == sub })
		e.emitMu.Unlock()
		sub.close()
	}
}

// Emit queues ev for every subscriber, in order. Modes call it; so may tests.
func (e *Engine) Emit(ev Event) {
	e.emitMu.Lock()
	defer e.emitMu.Unlock()
	for _, s := range e.subs {
		s.push(ev)
	}
}

// Start announces the session to the sinks (the store creates its row).
func (e *Engine) Start(resumed bool) { e.Emit(SessionStarted{Session: e.Info(), Resumed: resumed}) }

// Info returns a copy of the session metadata.
func (e *Engine) Info() SessionInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	info := e.info
	info.State = make(map[string]string, len(e.info.State))
	for k, v := range e.info.State {
		info.State[k] = v
	}
	return info
}

// SetState stores a per-mode value in the session and announces it.
func (e *Engine) SetState(key, value string) {
	e.mu.Lock()
	e.info.State[key] = value
	e.mu.Unlock()
	e.Emit(SessionUpdated{Session: e.Info()})
}

// State reads a per-mode value.
func (e *Engine) State(key string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.info.State[key]
}

// History is the session's shared history.
func (e *Engine) History() *transcript.History {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.history
}

// --- modes -----------------------------------------------------------------

// Mode decides who speaks. Each mode is one file with its descriptor
// (ModeSpec), listed in modes.go. A mode reports only
// through events; consumers never reach into it.
type Mode interface {
	Name() string
	// Agents are the agents the console shows a panel for, in order.
	Agents() []*Agent
	// Submit runs one exchange for a line the user typed (it may be empty
	// where the mode gives that a meaning, e.g. alternate's next step).
	Submit(ctx context.Context, input string) error
}

// modeNamed returns the session's instance of a mode, building it on first
// use. Building may read the session (e.State), so it runs without e.mu;
// buildMu makes concurrent callers share one instance (a Pause sent to one
// copy of a talk would not hold the copy that runs).
func (e *Engine) modeNamed(name string) (Mode, error) {
	e.mu.Lock()
	m, ok := e.modes[name]
	e.mu.Unlock()
	if ok {
		return m, nil
	}
	e.buildMu.Lock()
	defer e.buildMu.Unlock()
	e.mu.Lock()
	m, ok = e.modes[name]
	e.mu.Unlock()
	if ok {
		return m, nil // built by the caller we waited for
	}
	m, err := e.buildMode(name)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.modes[name] = m
	e.mu.Unlock()
	return m, nil
}

// buildMode constructs a new instance of a mode; the caller holds buildMu.
func (e *Engine) buildMode(name string) (Mode, error) {
	spec, ok := e.Config.ModeList.Spec(name)
	if !ok {
		return nil, &config.ConfigError{File: e.Config.Source, Key: "mode", Problem: e.Config.ModeList.Unknown(name)}
	}
	builder, ok := spec.(ModeSpec)
	if !ok { // a configuration's list holds a mode this program cannot build
		return nil, &config.ConfigError{File: e.Config.Source, Key: "mode", Problem: fmt.Sprintf("mode %q cannot be built by this program", name)}
	}
	m, err := builder.New(e)
	var unseated *UnseatedError
	if errors.As(err, &unseated) && unseated.Mode == "" {
		unseated.Mode = name
	}
	return m, err
}

// Mode returns the mode called name (built on first use).
func (e *Engine) Mode(name string) (Mode, error) { return e.modeNamed(name) }

// Current returns the current mode.
func (e *Engine) Current() Mode {
	e.mu.Lock()
	name := e.current
	e.mu.Unlock()
	m, err := e.modeNamed(name)
	if err != nil {
		panic(err) // the name was checked when it was set
	}
	return m
}

// SetMode switches the current mode; the history stays.
func (e *Engine) SetMode(name string) error {
	if _, err := e.modeNamed(name); err != nil {
		return err
	}
	e.mu.Lock()
	e.current = name
	e.info.Title = retitled(e.info.Title, e.info.Mode, name)
	e.info.Mode = name
	e.mu.Unlock()
	e.Emit(SessionUpdated{Session: e.Info()})
	return nil
}

// Submit runs one exchange in the current mode. Only one exchange runs at a
// time; Cancel stops it. Notes (mention lines without @) may be added while
// another exchange runs. A line refused with nothing of it kept returns a
// *refusedError (IsRefused) around the refusal.
func (e *Engine) Submit(ctx context.Context, input string) error {
	m := e.Current()
	if named := e.namedAskOf(m, input); named != nil {
		m = named // "@gemini …" in a mode that routes no names (namedask.go)
	}
	return e.submitTo(ctx, m, input)
}

// submitTo runs one exchange in mode m.
func (e *Engine) submitTo(ctx context.Context, m Mode, input string) error {
	if n, ok := m.(interface{ IsNote(string) bool }); ok && n.IsNote(input) {
		return m.Submit(ctx, input) // a note never waits and never calls
	}
	if err := e.refusePending(); err != nil {
		return err // the run waiting for its host is not abandoned (checkpointpending.go)
	}
	return e.exchangeOf(ctx, m, input, m.Submit)
}

// exchangeOf runs run (a mode's Submit, or its resumption at a saved
// checkpoint) as one exchange of m: busy, leased, capped, announced.
func (e *Engine) exchangeOf(ctx context.Context, m Mode, input string, run func(context.Context, string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	e.mu.Lock()
	if e.busy {
		e.mu.Unlock()
		cancel()
		return ErrBusy
	}
	e.busy, e.cancel, e.interrupted = true, cancel, time.Time{} // a new exchange starts a new Ctrl+C count
	e.idle = make(chan struct{})
	// A cap stops the exchange through its own cause: the calls in flight
	// finish (streamContext), the mode starts no new one.
	modeCtx, stop := context.WithCancelCause(ctx)
	e.exchange = exchangeSpend{stop: stop}
	e.newExchangeTools()
	e.mu.Unlock()
	// The session's lease, before any provider call: a refused exchange
	// has spent nothing.
	// A lease lost while held (this process was paused past its expiry
	// and another took the session, or the session was deleted) stops
	// the exchange at once: its calls are cancelled, and it ends with
	// the loss, whatever the mode made of the cancel.
	var lost lostLease
	// The lease is given back while the run waits for its host (a
	// checkpoint holds no lease) and taken again after (checkpoints.go).
	hold := &leaseHold{take: func(ctx context.Context) (func(), error) {
		return e.lease(ctx, func(err error) { lost.set(err); cancel() })
	}}
	err := hold.retake(ctx)
	e.hosting.setLease(hold)
	e.hosting.setMode(m.Name())
	// Given back before ExchangeFinished is announced: a door that saw
	// the exchange end may hand the session to another at once.
	release := hold.drop
	defer func() {
		e.hosting.setLease(nil)
		e.hosting.setMode("")
		release()
		stop(context.Canceled)
		cancel()
		e.mu.Lock()
		e.busy, e.cancel = false, nil
		e.exchange.stop = nil
		close(e.idle)
		e.mu.Unlock()
	}()
	if err != nil {
		e.Emit(ExchangeFinished{Mode: m.Name(), Err: err.Error()})
		return refused(err)
	}
	if ce := e.checkWindows(m, input); ce != nil { // a spend window with no room: nothing kept or sent
		release()
		e.Emit(CapReached{CapError: *ce, Message: ce.Error()})
		e.Emit(ExchangeFinished{Mode: m.Name(), Err: ce.Error()})
		return refused(ce)
	}
	before := e.History().Len()
	err = run(modeCtx, input)
	if cause := context.Cause(modeCtx); spend.IsCap(cause) {
		err = cause // the exchange ended at a cap, whatever the mode made of it
	}
	if l := lost.get(); l != nil {
		err = l
	}
	var usage providers.Usage
	var cost float64
	for _, en := range e.History().Since(before) {
		usage = usage.Add(en.Usage)
		cost += en.Cost
	}
	done := ExchangeFinished{Mode: m.Name(), Usage: usage, Cost: cost}
	if err != nil {
		done.Err = err.Error()
	}
	release()
	e.Emit(done)
	if err != nil && e.History().Len() == before {
		return refused(err) // nothing of the line was kept: the door may give it back
	}
	return err
}

// Busy reports whether an exchange is running.
func (e *Engine) Busy() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.busy
}

// Wait returns when no exchange runs and every subscriber has consumed
// every event emitted so far, or when ctx ends. It replaces polling Busy.
func (e *Engine) Wait(ctx context.Context) error {
	for {
		e.mu.Lock()
		idle := e.idle
		e.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
		e.emitMu.Lock()
		subs := slices.Clone(e.subs)
		e.emitMu.Unlock()
		for _, s := range subs {
			if err := s.drained(ctx); err != nil {
				return err
			}
		}
		if !e.Busy() { // no exchange began while the queues drained
			return nil
		}
	}
}

// interruptWindow is how soon a second interrupt must follow the first to quit.
const interruptWindow = 2 * time.Second

// Interrupt applies Parley's one Ctrl+C policy, the same in the console, the
// REPL and every headless command: the first interrupt cancels the running
// exchange (what arrived is kept, marked cancelled); a second within
// interruptWindow, or one while idle, means quit, which it reports.
func (e *Engine) Interrupt() (quit bool) {
	e.mu.Lock()
	busy, cancel, last := e.busy, e.cancel, e.interrupted
	now := e.now()
	if busy {
		e.interrupted = now
	}
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return !busy || (!last.IsZero() && now.Sub(last) < interruptWindow)
}

// Cancel stops the exchange in flight; what arrived is kept, marked cancelled.
func (e *Engine) Cancel() {
	e.mu.Lock()
	cancel := e.cancel
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// appendAndAnnounce appends en and emits the event announcing it without
// letting another append in between: goroutines adding entries at once
// (parallel tool loops, a note during an exchange) would otherwise announce
// turn 8 before turn 7, and consumers print in announcement order.
func (e *Engine) appendAndAnnounce(en transcript.Entry, announce func(transcript.Entry) Event) transcript.Entry {
	e.appendMu.Lock()
	defer e.appendMu.Unlock()
	if e.journal != nil {
		saved, missed, err := e.journal.Append(e.Info(), en, e.History().Len())
		if err == nil {
			e.takeIn(missed)
			en = e.History().Put(saved)
			e.Emit(announce(en))
			return en
		}
		// The journal reported its failure (the run then exits non-zero);
		// the turn goes on in memory so nothing already said is lost.
	}
	en = e.History().Append(en)
	e.Emit(announce(en))
	return en
}

// AgentsOf filters the engine's agents by name, keeping configuration order.
func (e *Engine) AgentsOf(names []string) []*Agent {
	var out []*Agent
	for _, a := range e.agents {
		if slices.Contains(names, a.Name) {
			out = append(out, a)
		}
	}
	return out
}
