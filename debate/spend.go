package debate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/providers"
)

// Meter counts what calls cost and holds the cap their spend may not pass.
// Every engine has one (NewEngine makes it); engines may share one (bench
// puts every question of a run under one cap). A call is admitted only
// when its worst case fits under the cap beside what was spent and the
// worst cases of the calls still in flight.
type Meter struct {
	mu       sync.Mutex
	cap      float64 // USD; 0: none
	spent    float64 // priced from the usage of finished calls
	reserved float64 // worst cases of calls in flight
	unknown  bool    // a call had no price: spent is a lower bound
	// estimated: a call's usage was Parley's count (its stream ended
	// before the provider's figures came).
	estimated bool
	// parent, when set, is a budget over several meters (an MCP stdio
	// connection's budget_usd across its tool calls, serve's spend windows):
	// a call must fit under both, and its cost counts in both.
	parent *Meter
	// window, when set, makes the cap a spend limit over a calendar window
	// (window.go): spent is what the current window spent.
	window *meterWindow
}

// Under makes m count under parent too. Call it before m's first call.
func (m *Meter) Under(parent *Meter) {
	m.mu.Lock()
	m.parent = parent
	m.mu.Unlock()
}

// NewMeter returns a meter with a cap (0: none) that has already counted
// spent (a session reloaded by serve keeps what it spent before).
func NewMeter(capUSD, spent float64) *Meter {
	return &Meter{cap: closedCap(capUSD), spent: max(spent, 0)}
}

// SetCap changes the cap (0 lifts it).
func (m *Meter) SetCap(capUSD float64) {
	m.mu.Lock()
	m.cap = closedCap(capUSD)
	m.mu.Unlock()
}

// closedCap is a cap as a meter keeps it. Every door checks its figures
// (package figures), but a NaN that slipped past one would make every
// comparison false and let every call through: it fails closed instead,
// as a cap no call fits under. A negative cap is none.
func closedCap(capUSD float64) float64 {
	if math.IsNaN(capUSD) {
		return math.SmallestNonzeroFloat64
	}
	return max(capUSD, 0)
}

// Cap is the cap in USD, 0 when none.
func (m *Meter) Cap() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cap
}

// Spent is what finished calls cost.
func (m *Meter) Spent() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// reserve admits a call whose worst case is worst; it returns the limit
// that refused it (the first of m and its parents it would pass).
func (m *Meter) reserve(worst float64) (ok bool, hit limit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roll()
	if m.cap > 0 && m.spent+m.reserved+worst > m.cap {
		return false, m.limitLocked()
	}
	if m.parent != nil { // child before parent: the one lock order
		if ok, hit := m.parent.reserve(worst); !ok {
			return false, hit
		}
	}
	m.reserved += worst
	return true, m.limitLocked()
}

// settle replaces a call's reserved worst case by what it cost; passed
// reports that the spend is now past a cap (m's own first, else the
// nearest parent's), hit which one.
func (m *Meter) settle(worst, cost float64, u providers.Usage) (passed bool, hit limit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roll()
	m.reserved = max(m.reserved-worst, 0)
	m.spent += cost
	m.unknown = m.unknown || u.PriceUnknown
	m.estimated = m.estimated || u.Estimated
	own := m.cap > 0 && m.spent > m.cap
	if m.parent != nil {
		if passed, hit := m.parent.settle(worst, cost, u); passed && !own {
			return true, hit
		}
	}
	return own, m.limitLocked()
}

// bound is the nearest cap over m's calls (m's own, else a parent's), 0
// when none.
func (m *Meter) bound() float64 {
	for p := m; p != nil; {
		p.mu.Lock()
		capUSD, parent := p.cap, p.parent
		p.mu.Unlock()
		if capUSD > 0 {
			return capUSD
		}
		p = parent
	}
	return 0
}

func (m *Meter) snapshot() (spent, capUSD float64, unknown, estimated bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent, m.cap, m.unknown, m.estimated
}

// Cap reasons (CapError.Reason, CapReached.Reason).
const (
	CapSession  = "cap"          // the session's (run's) cap: --max-cost, budget_usd, /budget, max_cost
	CapExchange = "exchange_cap" // the mode's per-exchange cap: modes.<mode>.budget_usd
	CapUnpriced = "unpriced"     // the model has no price, so no cap can bound it
	CapWindow   = "spend_window" // a spend limit per hour or day (serve.max_cost_per_hour, …)
)

// CapError is a call that was not started because its worst case could
// pass a cap, or because its model has no price while a cap is set. The
// exchange ends with what arrived, as after a cancel (errors.Is(err,
// context.Canceled) holds), and the headless commands exit with their
// own code.
type CapError struct {
	Reason   string  `json:"reason"` // CapSession, CapExchange or CapUnpriced
	Agent    string  `json:"agent"`
	Model    string  `json:"model"`
	CapUSD   float64 `json:"cap_usd"`
	SpentUSD float64 `json:"spent_usd"`
	WorstUSD float64 `json:"worst_usd,omitempty"` // the refused call's worst case
	// ReservedUSD is what calls still in flight held against the cap when
	// it refused: the reason may be them, not what was spent.
	ReservedUSD float64 `json:"reserved_usd,omitempty"`
	// Passed: the spend is already past the cap (a call cost more than
	// its worst case); Agent and Model name that call, WorstUSD its
	// worst case and CostUSD what it cost.
	Passed  bool    `json:"passed,omitempty"`
	CostUSD float64 `json:"cost_usd,omitempty"`
	// A spend window's refusal (Reason CapWindow): its setting
	// (LimitPerHour, LimitPerDay), whose spend it bounds, and when the
	// window ends.
	Limit    string    `json:"limit,omitempty"`
	Scope    string    `json:"scope,omitempty"`
	ResetsAt time.Time `json:"resets_at,omitzero"`
}

func (e *CapError) Error() string {
	if e.Reason == CapWindow {
		return e.windowSentence()
	}
	if e.Passed {
		which := "the cap of " + CapString(e.CapUSD)
		if e.Reason == CapExchange {
			which = "this exchange's cap of " + CapString(e.CapUSD) + " (modes budget_usd)"
		}
		return fmt.Sprintf("cost cap reached: spent %s, past %s — %s on %s cost %s, over its worst case of %s; no further call starts",
			usd(e.SpentUSD), which, e.Agent, e.Model, usd(e.CostUSD), usd(e.WorstUSD))
	}
	switch e.Reason {
	case CapUnpriced:
		return fmt.Sprintf("cost cap %s: %s has no price, so a cap cannot bound its calls — add models.%s.input and .output (USD per 1M tokens) to your configuration, or run without a cap",
			CapString(e.CapUSD), e.Model, e.Model)
	case CapExchange:
		return fmt.Sprintf("cost cap reached: the next call (%s on %s, up to %s) could pass this exchange's cap of %s (modes budget_usd); %s on it",
			e.Agent, e.Model, usd(e.WorstUSD), CapString(e.CapUSD), e.heldPhrase())
	}
	return fmt.Sprintf("cost cap reached: the next call (%s on %s, up to %s) could pass the cap of %s; %s",
		e.Agent, e.Model, usd(e.WorstUSD), CapString(e.CapUSD), e.heldPhrase())
}

// heldPhrase says what stands against the cap: what was spent and, when
// calls are still in flight, what they hold (a refusal with nothing spent
// yet is caused by them, and says so rather than "spent $0.0000").
func (e *CapError) heldPhrase() string {
	if e.ReservedUSD <= 0 {
		return "spent " + usd(e.SpentUSD)
	}
	if e.SpentUSD <= 0 {
		return "calls still in flight hold up to " + usd(e.ReservedUSD) + " of it (nothing spent yet)"
	}
	return "spent " + usd(e.SpentUSD) + ", and calls still in flight hold up to " + usd(e.ReservedUSD)
}

// Is makes a cap stop read as a cancel to the modes: they end with what
// arrived.
func (e *CapError) Is(target error) bool { return target == context.Canceled }

func usd(v float64) string { return fmt.Sprintf("$%.4f", v) }

// CapString writes a cap as it was given: "$0.50", "$0.035", "$2.00".
func CapString(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return "$" + s
}

// CapStopped is what a call the cap kept from starting shows instead of
// "cancelled".
const CapStopped = "not started: cost cap reached"

// StopReason says why ctx ended, for a vote or ranking that did not come.
func StopReason(ctx context.Context) string {
	if IsCap(context.Cause(ctx)) {
		return CapStopped
	}
	return "cancelled"
}

// IsCapStop reports whether a turn was not started because of a cost cap.
func IsCapStop(en Entry) bool {
	return en.Status == StatusCancelled && strings.HasPrefix(en.Error, "cost cap")
}

// IsCap reports whether err is (or wraps) a CapError.
func IsCap(err error) bool {
	var ce *CapError
	return errors.As(err, &ce)
}

// Meter is the engine's spend meter.
func (e *Engine) Meter() *Meter {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.meter
}

// SetMeter makes the engine count its calls on m (shared by several
// engines) and announces the spend.
func (e *Engine) SetMeter(m *Meter) {
	e.mu.Lock()
	e.meter = m
	e.mu.Unlock()
	e.emitSpend()
}

// SetCap sets the session's cap in USD (0 lifts it) and announces it.
func (e *Engine) SetCap(capUSD float64) {
	e.Meter().SetCap(capUSD)
	e.emitSpend()
}

// Spend is the session's spend and caps as they stand.
func (e *Engine) Spend() SpendUpdated {
	spent, capUSD, unknown, estimated := e.Meter().snapshot()
	e.mu.Lock()
	ex := e.exchange
	mode := e.current
	e.mu.Unlock()
	return SpendUpdated{SpentUSD: spent, CapUSD: capUSD, Unknown: unknown, Estimated: estimated,
		ExchangeUSD: ex.spent, ExchangeCapUSD: e.Config.ModeBudget(mode)}
}

// emitSpend announces the spend as it stands. Parallel calls settle at
// once: without spendMu one could read $0.02, another $0.03 and announce
// it first, leaving every door showing the older figure (seen in CI).
func (e *Engine) emitSpend() {
	e.spendMu.Lock()
	defer e.spendMu.Unlock()
	e.Emit(e.Spend())
}

// exchangeSpend is what the running exchange spent and holds in flight,
// for the mode's per-exchange cap.
type exchangeSpend struct {
	spent, reserved float64
	stop            context.CancelCauseFunc // ends the exchange (nil outside one)
	// refused is the exchange's first refusal: later calls of the same
	// exchange are refused with it, quietly.
	refused *CapError
}

// admission is a call let through: settle it with what it cost.
type admission struct {
	e     *Engine
	meter *Meter
	worst float64
}

// admit checks a call against the caps before it is started: its worst
// case (the prompt at two bytes a token, every max_tokens token as output,
// at the model's price) must fit under the session's cap and the mode's
// per-exchange cap beside what was spent and what is in flight. A refusal
// stops the running exchange (the calls in flight finish) and is
// announced once as CapReached.
func (e *Engine) admit(a *Agent, req providers.Request, tt *toolTurn) (*admission, error) {
	meter := e.Meter()
	e.mu.Lock()
	modeCap := e.Config.ModeBudget(e.current)
	e.mu.Unlock()
	worst, priced := e.Config.worstTurnCost(a.Model, req, tt, e.now())
	sessionCap := meter.bound()
	refuse := func(ce *CapError) (*admission, error) {
		if first := e.stopAtCap(ce); first != nil {
			return nil, first
		}
		return nil, ce
	}
	if (sessionCap > 0 || modeCap > 0) && !priced {
		return refuse(&CapError{Reason: CapUnpriced, Agent: a.Label(), Model: a.Model, CapUSD: max(sessionCap, modeCap), SpentUSD: meter.Spent()})
	}
	e.mu.Lock()
	if first := e.exchange.refused; first != nil {
		e.mu.Unlock()
		return nil, first
	}
	if modeCap > 0 && e.exchange.spent+e.exchange.reserved+worst > modeCap {
		spent, reserved := e.exchange.spent, e.exchange.reserved
		e.mu.Unlock()
		return refuse(&CapError{Reason: CapExchange, Agent: a.Label(), Model: a.Model, CapUSD: modeCap, SpentUSD: spent, ReservedUSD: reserved, WorstUSD: worst})
	}
	ok, hit := meter.reserve(worst)
	if !ok {
		e.mu.Unlock()
		return refuse(hit.refusal(CapError{Agent: a.Label(), Model: a.Model, WorstUSD: worst}))
	}
	e.exchange.reserved += worst
	e.mu.Unlock()
	return &admission{e: e, meter: meter, worst: worst}, nil
}

// settle counts what the admitted call cost and announces the spend. It
// returns the cap the spend is now past (the session's or the mode's per
// exchange), nil when none: a cap passed is a cap reached.
func (ad *admission) settle(a *Agent, cost float64, u providers.Usage) *CapError {
	passed, hit := ad.meter.settle(ad.worst, cost, u)
	e := ad.e
	e.mu.Lock()
	e.exchange.reserved = max(e.exchange.reserved-ad.worst, 0)
	e.exchange.spent += cost
	exSpent, modeCap := e.exchange.spent, e.Config.ModeBudget(e.current)
	e.mu.Unlock()
	// Free calls (demo, local models) under no cap change nothing to show.
	if cost > 0 || u.PriceUnknown || ad.meter.Cap() > 0 {
		e.emitSpend()
	}
	ce := hit.refusal(CapError{Agent: a.Label(), Model: a.Model, WorstUSD: ad.worst, Passed: true, CostUSD: cost})
	switch {
	case passed:
		return ce
	case modeCap > 0 && exSpent > modeCap:
		ce.Reason, ce.CapUSD, ce.SpentUSD = CapExchange, modeCap, exSpent
		return ce
	}
	return nil
}

// KindOverWorstCase is the ErrorOccurred kind of a call that cost more
// than the worst case it was admitted by.
const KindOverWorstCase = "over_worst_case"

// overWorst is the warning of a call that cost more than its worst case
// (a provider reporting more than max_tokens allows, or a prompt denser
// than two bytes a token), "" otherwise. Unpriced calls have no worst case.
func (ad *admission) overWorst(a *Agent, en Entry) string {
	const slack = 1e-9 // float sums
	if ad.worst <= 0 || en.Cost <= ad.worst+slack {
		return ""
	}
	how := "reported"
	if en.Usage.Estimated {
		how = "counted (estimated)"
	}
	return fmt.Sprintf("usage over the worst case: %s on %s %s %s input and %s output tokens, %s, where its worst case was %s",
		a.Label(), a.Model, how, strconv.Itoa(en.Usage.InputTokens), strconv.Itoa(en.Usage.OutputTokens),
		usd(en.Cost), usd(ad.worst))
}

// stopAtCap stops the running exchange at ce and announces it, once: the
// calls in flight finish, no new one starts, and the exchange returns ce
// (the headless commands exit 4). It returns the exchange's earlier cap
// stop instead, unannounced, when there was one.
func (e *Engine) stopAtCap(ce *CapError) (first *CapError) {
	e.mu.Lock()
	first, stop := e.exchange.refused, e.exchange.stop
	if first == nil && stop != nil {
		e.exchange.refused = ce
	}
	e.mu.Unlock()
	if first != nil {
		return first
	}
	if stop != nil {
		stop(ce)
	}
	e.Emit(CapReached{CapError: *ce, Message: ce.Error()})
	return nil
}

// WorstCost prices a call's worst case before it is made: its prompt at
// two bytes a token (real tokenizers average about four, so this errs
// high) and every one of its max_tokens as output, each prompt token at
// the dearer of the input and cache-write prices in force on day at (with
// the long-context tier when the estimate passes it). priced is false when
// the model has no price.
func (c *Config) WorstCost(model string, req providers.Request, at time.Time) (usd float64, priced bool) {
	u := providers.Usage{InputTokens: providers.EstimatePromptTokens(req), OutputTokens: req.MaxTokens}
	plain, priced := c.CostAt(model, u, at)
	if !priced {
		return 0, false
	}
	u.CacheWriteTokens = u.InputTokens
	written, _ := c.CostAt(model, u, at)
	return max(plain, written), true
}

// ModeBudget is the per-exchange cap of a mode (modes.<mode>.budget_usd),
// 0 when none.
func (c *Config) ModeBudget(mode string) float64 {
	if s, ok := c.ModeList.Spec(mode); ok {
		return s.Budget(c)
	}
	return 0
}

// streamContext is the context a call streams under: it ends with ctx,
// except when ctx ends because a cap stopped the exchange — a call
// already admitted fits under the cap, so what it is saying still arrives.
func streamContext(ctx context.Context) (context.Context, context.CancelFunc) {
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	if ctx.Err() != nil && !IsCap(context.Cause(ctx)) {
		cancel(context.Cause(ctx)) // now, not from AfterFunc's goroutine
	}
	stopAfter := context.AfterFunc(ctx, func() {
		if cause := context.Cause(ctx); !IsCap(cause) {
			cancel(cause)
		}
	})
	return sctx, func() { stopAfter(); cancel(context.Canceled) }
}
