package debate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// IsCapStop reports whether a turn was not started because of a cost cap.
func IsCapStop(en transcript.Entry) bool {
	return en.Status == transcript.StatusCancelled && strings.HasPrefix(en.Error, "cost cap")
}

// Meter is the engine's spend meter.
func (e *Engine) Meter() *spend.Meter {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.meter
}

// SetMeter makes the engine count its calls on m (shared by several
// engines) and announces the spend.
func (e *Engine) SetMeter(m *spend.Meter) {
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
	spent, capUSD, unknown, estimated := e.Meter().Snapshot()
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
	refused *spend.CapError
}

// admission is a call let through: settle it with what it cost.
type admission struct {
	e     *Engine
	meter *spend.Meter
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
	worst, priced := worstTurnCost(e.Config, a.Model, req, tt, e.now())
	sessionCap := meter.Bound()
	refuse := func(ce *spend.CapError) (*admission, error) {
		if first := e.stopAtCap(ce); first != nil {
			return nil, first
		}
		return nil, ce
	}
	if (sessionCap > 0 || modeCap > 0) && !priced {
		return refuse(&spend.CapError{Reason: spend.CapUnpriced, Agent: a.Label(), Model: a.Model, CapUSD: max(sessionCap, modeCap), SpentUSD: meter.Spent()})
	}
	e.mu.Lock()
	if first := e.exchange.refused; first != nil {
		e.mu.Unlock()
		return nil, first
	}
	if modeCap > 0 && e.exchange.spent+e.exchange.reserved+worst > modeCap {
		spent, reserved := e.exchange.spent, e.exchange.reserved
		e.mu.Unlock()
		return refuse(&spend.CapError{Reason: spend.CapExchange, Agent: a.Label(), Model: a.Model, CapUSD: modeCap, SpentUSD: spent, ReservedUSD: reserved, WorstUSD: worst})
	}
	ok, hit := meter.Reserve(worst)
	if !ok {
		e.mu.Unlock()
		return refuse(hit.Refusal(spend.CapError{Agent: a.Label(), Model: a.Model, WorstUSD: worst}))
	}
	e.exchange.reserved += worst
	e.mu.Unlock()
	return &admission{e: e, meter: meter, worst: worst}, nil
}

// settle counts what the admitted call cost and announces the spend. It
// returns the cap the spend is now past (the session's or the mode's per
// exchange), nil when none: a cap passed is a cap reached.
func (ad *admission) settle(a *Agent, cost float64, u providers.Usage) *spend.CapError {
	passed, hit := ad.meter.Settle(ad.worst, cost, u)
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
	ce := hit.Refusal(spend.CapError{Agent: a.Label(), Model: a.Model, WorstUSD: ad.worst, Passed: true, CostUSD: cost})
	switch {
	case passed:
		return ce
	case modeCap > 0 && exSpent > modeCap:
		ce.Reason, ce.CapUSD, ce.SpentUSD = spend.CapExchange, modeCap, exSpent
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
func (ad *admission) overWorst(a *Agent, en transcript.Entry) string {
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
		spend.USD(en.Cost), spend.USD(ad.worst))
}

// stopAtCap stops the running exchange at ce and announces it, once: the
// calls in flight finish, no new one starts, and the exchange returns ce
// (the headless commands exit 4). It returns the exchange's earlier cap
// stop instead, unannounced, when there was one.
func (e *Engine) stopAtCap(ce *spend.CapError) (first *spend.CapError) {
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

// worstCost prices a call's worst case before it is made: its prompt at
// two bytes a token (real tokenizers average about four, so this errs
// high) and every one of its max_tokens as output, each prompt token at
// the dearer of the input and cache-write prices in force on day at (with
// the long-context tier when the estimate passes it). priced is false when
// the model has no price.
func worstCost(c *config.Config, model string, req providers.Request, at time.Time) (usd float64, priced bool) {
	u := providers.Usage{InputTokens: providers.EstimatePromptTokens(req), OutputTokens: req.MaxTokens}
	plain, priced := c.CostAt(model, u, at)
	if !priced {
		return 0, false
	}
	u.CacheWriteTokens = u.InputTokens
	written, _ := c.CostAt(model, u, at)
	return max(plain, written), true
}

// streamContext is the context a call streams under: it ends with ctx,
// except when ctx ends because a cap stopped the exchange — a call
// already admitted fits under the cap, so what it is saying still arrives.
func streamContext(ctx context.Context) (context.Context, context.CancelFunc) {
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	if ctx.Err() != nil && !spend.IsCap(context.Cause(ctx)) {
		cancel(context.Cause(ctx)) // now, not from AfterFunc's goroutine
	}
	stopAfter := context.AfterFunc(ctx, func() {
		if cause := context.Cause(ctx); !spend.IsCap(cause) {
			cancel(cause)
		}
	})
	return sctx, func() { stopAfter(); cancel(context.Canceled) }
}

// refuseUnpriced refuses an exchange before anything of it is kept or
// sent when a cap (the session's or the mode's per exchange) is set and
// one of the agents it will call has no price: no cap can bound that
// call, so the refusal is known before the exchange and leaves no turn
// and no question behind (issue 43). It is announced as CapReached and
// stops the exchange as a refusal at the call would.
func (e *Engine) refuseUnpriced(agents []*Agent) error {
	e.mu.Lock()
	modeCap := e.Config.ModeBudget(e.current)
	e.mu.Unlock()
	meter := e.Meter()
	capUSD := max(meter.Bound(), modeCap)
	if capUSD <= 0 {
		return nil
	}
	for _, a := range agents {
		if a == nil {
			continue
		}
		if _, priced := e.Config.CostAt(a.Model, providers.Usage{InputTokens: 1, OutputTokens: 1}, e.now()); priced {
			continue
		}
		ce := &spend.CapError{Reason: spend.CapUnpriced, Agent: a.Label(), Model: a.Model, CapUSD: capUSD, SpentUSD: meter.Spent()}
		if first := e.stopAtCap(ce); first != nil {
			return first
		}
		return ce
	}
	return nil
}

// checkWindows refuses an exchange before anything of it is kept or sent
// when a spend window over the session has no room for the cheapest call
// mode m could make for input (its agents' system prompts, the input, their
// max_tokens): the caller sees the refusal at once (serve's 429), not
// after the line was added. The calls themselves are still admitted one by
// one against their own worst cases.
func (e *Engine) checkWindows(m Mode, input string) *spend.CapError {
	var cheapest *Agent
	var worst float64
	for _, a := range m.Agents() {
		if a == nil {
			continue
		}
		out := a.MaxTokens
		if out == 0 {
			out = e.Config.ModelInfo(a.Model).DefaultMaxTokens()
		}
		req := providers.Request{System: SystemPrompt(a, ""), MaxTokens: out,
			Messages: []providers.Message{{Role: providers.RoleUser, Content: input}}}
		w, priced := worstCost(e.Config, a.Model, req, e.now())
		if priced && (cheapest == nil || w < worst) {
			cheapest, worst = a, w
		}
	}
	if cheapest == nil {
		return nil // unpriced agents are refused at their call
	}
	hit, full := e.Meter().WindowRefusal(worst)
	if !full {
		return nil
	}
	return hit.Refusal(spend.CapError{WorstUSD: worst}) // the cheapest call: no agent is named
}
