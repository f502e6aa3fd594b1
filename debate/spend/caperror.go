package spend

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
	// Unreadable: the window is kept by a ledger (a database) that did
	// not answer, so the call was refused without knowing its room (the
	// window fails closed); the figures are the last ones read.
	Unreadable bool `json:"unreadable,omitempty"`
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
			USD(e.SpentUSD), which, e.Agent, e.Model, USD(e.CostUSD), USD(e.WorstUSD))
	}
	switch e.Reason {
	case CapUnpriced:
		return fmt.Sprintf("cost cap %s: %s has no price, so a cap cannot bound its calls — add models.%s.input and .output (USD per 1M tokens) to your configuration, or run without a cap",
			CapString(e.CapUSD), e.Model, e.Model)
	case CapExchange:
		return fmt.Sprintf("cost cap reached: the next call (%s on %s, up to %s) could pass this exchange's cap of %s (modes budget_usd); %s on it",
			e.Agent, e.Model, USD(e.WorstUSD), CapString(e.CapUSD), e.heldPhrase())
	}
	return fmt.Sprintf("cost cap reached: the next call (%s on %s, up to %s) could pass the cap of %s; %s",
		e.Agent, e.Model, USD(e.WorstUSD), CapString(e.CapUSD), e.heldPhrase())
}

// heldPhrase says what stands against the cap: what was spent and, when
// calls are still in flight, what they hold (a refusal with nothing spent
// yet is caused by them, and says so rather than "spent $0.0000").
func (e *CapError) heldPhrase() string {
	if e.ReservedUSD <= 0 {
		return "spent " + USD(e.SpentUSD)
	}
	if e.SpentUSD <= 0 {
		return "calls still in flight hold up to " + USD(e.ReservedUSD) + " of it (nothing spent yet)"
	}
	return "spent " + USD(e.SpentUSD) + ", and calls still in flight hold up to " + USD(e.ReservedUSD)
}

// Is makes a cap stop read as a cancel to the modes: they end with what
// arrived.
func (e *CapError) Is(target error) bool { return target == context.Canceled }

// USD writes an amount as every sentence of the meter does: "$0.0123".
func USD(v float64) string { return fmt.Sprintf("$%.4f", v) }

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

// IsCap reports whether err is (or wraps) a CapError.
func IsCap(err error) bool {
	var ce *CapError
	return errors.As(err, &ce)
}
