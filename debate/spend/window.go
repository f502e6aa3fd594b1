package spend

import (
	"fmt"
	"strings"
	"time"
)

// Spend windows: a cap on what calls spend within a calendar hour or day
// (UTC), over many sessions (parley serve's max_cost_per_hour and
// max_cost_per_day, per user and per server). A session's meter counts
// under its windows (Meter.Under): every call must fit under each, as under
// any cap, and a window passed stops the run before its next call.

// The spend window settings, as a refusal names them: each user's, and
// the whole server's.
const (
	LimitPerHour       = "max_cost_per_hour"
	LimitPerDay        = "max_cost_per_day"
	ServerLimitPerHour = "server_max_cost_per_hour"
	ServerLimitPerDay  = "server_max_cost_per_day"
)

// Window is one spend window: its setting, its length and whose spend it
// bounds.
type Window struct {
	Limit  string        // LimitPerHour, ServerLimitPerDay, …
	Period time.Duration // time.Hour or 24 * time.Hour
	Scope  string        // `user "alice"`, "this server"
}

// Start is the start of the window holding t: the hour or the day (UTC).
func (w Window) Start(t time.Time) time.Time { return t.UTC().Truncate(w.Period) }

// span names the window in a sentence.
func (w Window) span() string {
	if w.Period >= 24*time.Hour {
		return "today (UTC)"
	}
	return "this hour"
}

// meterWindow is a window meter's clock: the start of the window its spent
// counts.
type meterWindow struct {
	Window
	now   func() time.Time
	start time.Time
	// ledger, when set, keeps the window's figures for every process
	// sharing it (ledger.go); holds are this meter's own calls in flight,
	// by the start of the window each was reserved in.
	ledger Ledger
	holds  map[time.Time]float64
}

// NewWindowMeter is a meter capped at capUSD over w: its current window
// (the one holding now()) has already spent spent (what the store holds of
// it); when the window ends, spent starts again from 0.
func NewWindowMeter(capUSD float64, w Window, spent float64, now func() time.Time) *Meter {
	if now == nil {
		now = time.Now
	}
	return &Meter{cap: closedCap(capUSD), spent: max(spent, 0),
		window: &meterWindow{Window: w, now: now, start: w.Start(now())}}
}

// roll starts a new window when the current one ended: what it spent no
// longer counts; the calls in flight stay reserved. Called under m.mu.
func (m *Meter) roll() {
	if m.window == nil {
		return
	}
	if start := m.window.Start(m.window.now()); start.After(m.window.start) {
		m.window.start, m.spent, m.unknown, m.estimated = start, 0, false, false
		if m.shared() { // the new window's figures are the ledger's
			m.reserved = 0
		}
	}
}

// Idle reports whether m holds no call in flight (a window meter nobody
// uses can be dropped and loaded again from the store).
func (m *Meter) Idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shared() {
		return m.idleShared()
	}
	return m.reserved == 0
}

// Limit is a meter's cap as it stood when it refused a call or was passed.
type Limit struct {
	spent, cap float64
	reserved   float64 // worst cases of the calls in flight
	window     *Window // nil: a session's cap
	resets     time.Time
	unreadable bool // the window's ledger did not answer
}

// limitLocked is m's limit; called under m.mu.
func (m *Meter) limitLocked() Limit {
	l := Limit{spent: m.spent, cap: m.cap, reserved: m.reserved}
	if m.window != nil {
		w := m.window.Window
		l.window, l.resets = &w, m.window.start.Add(w.Period)
	}
	return l
}

// Refusal is ce refused (or passed) by l.
func (l Limit) Refusal(ce CapError) *CapError {
	ce.Reason, ce.CapUSD, ce.SpentUSD, ce.ReservedUSD = CapSession, l.cap, l.spent, l.reserved
	if l.window != nil {
		ce.Reason, ce.Limit, ce.Scope, ce.ResetsAt = CapWindow, l.window.Limit, l.window.Scope, l.resets
		ce.Unreadable = l.unreadable
	}
	return &ce
}

// WindowRefusal is the first spend window over m that a call of worst
// case worst cannot fit under, ok false when every one has room.
func (m *Meter) WindowRefusal(worst float64) (hit Limit, ok bool) {
	for p := m; p != nil; {
		p.mu.Lock()
		p.roll()
		answered := !p.shared() || p.refreshShared() // a ledger that cannot answer: full (fail closed)
		room := p.cap - p.spent - p.reserved
		full := p.window != nil && p.cap > 0 && (worst > room || room <= 0 || !answered)
		hit, parent := p.limitLocked(), p.parent
		hit.unreadable = !answered
		p.mu.Unlock()
		if full {
			return hit, true
		}
		p = parent
	}
	return Limit{}, false
}

// WindowFull is the refusal of the first spend window over m with no room
// left (what it spent and holds in flight reach its limit), nil when every
// one has some: a door refuses new work at once.
func (m *Meter) WindowFull() *CapError {
	hit, full := m.WindowRefusal(0)
	if !full {
		return nil
	}
	return hit.Refusal(CapError{})
}

// windowSentence is a spend window's refusal: which limit, whose, what was
// spent and when it resets.
func (e *CapError) windowSentence() string {
	w := Window{Limit: e.Limit, Period: time.Hour}
	if strings.HasSuffix(e.Limit, "_per_day") {
		w.Period = 24 * time.Hour
	}
	resets := e.ResetsAt.UTC().Format(time.RFC3339)
	switch {
	case e.Unreadable:
		return fmt.Sprintf("spend limit unavailable: %s's %s could not be read from the database, so no call starts until it can; try again shortly",
			e.Scope, e.Limit)
	case e.Agent == "" && e.WorstUSD == 0: // no room left at all
		return fmt.Sprintf("spend limit reached: %s %s; it resets at %s",
			e.Scope, e.windowHeld(w), resets)
	case e.Agent == "": // an exchange refused before it started
		return fmt.Sprintf("spend limit reached: %s, and the next call (up to %s) could pass it; it resets at %s",
			e.Scope+" "+e.windowHeld(w), USD(e.WorstUSD), resets)
	case e.Passed:
		return fmt.Sprintf("spend limit reached: %s spent %s %s, past %s of %s — %s on %s cost %s, over its worst case of %s; no further call starts before it resets at %s",
			e.Scope, USD(e.SpentUSD), w.span(), e.Limit, CapString(e.CapUSD), e.Agent, e.Model, USD(e.CostUSD), USD(e.WorstUSD), resets)
	}
	return fmt.Sprintf("spend limit reached: %s %s, and the next call (%s on %s, up to %s) could pass it; it resets at %s",
		e.Scope, e.windowHeld(w), e.Agent, e.Model, USD(e.WorstUSD), resets)
}

// windowHeld says what stands against a window: what its scope spent in
// it and what calls in flight hold (the reason when nothing is spent yet).
func (e *CapError) windowHeld(w Window) string {
	of := "of its " + e.Limit + " of " + CapString(e.CapUSD)
	switch {
	case e.ReservedUSD <= 0:
		return "spent " + USD(e.SpentUSD) + " " + w.span() + " " + of
	case e.SpentUSD <= 0:
		return "has up to " + USD(e.ReservedUSD) + " " + of + " held by calls still in flight (nothing spent " + w.span() + ")"
	}
	return "spent " + USD(e.SpentUSD) + " " + w.span() + " " + of + ", and calls still in flight hold up to " + USD(e.ReservedUSD) + " more"
}
