package spend

import (
	"math"
	"sync"

	"github.com/parleyhq/parley/providers"
)

// Meter counts what calls cost and holds the cap their spend may not pass.
// Every engine has one (debate.NewEngine makes it); engines may share one (bench
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

// Reserve admits a call whose worst case is worst; it returns the limit
// that refused it (the first of m and its parents it would pass).
func (m *Meter) Reserve(worst float64) (ok bool, hit Limit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roll()
	if m.shared() {
		return m.reserveShared(worst)
	}
	if m.cap > 0 && m.spent+m.reserved+worst > m.cap {
		return false, m.limitLocked()
	}
	if m.parent != nil { // child before parent: the one lock order
		if ok, hit := m.parent.Reserve(worst); !ok {
			return false, hit
		}
	}
	m.reserved += worst
	return true, m.limitLocked()
}

// Settle replaces a call's reserved worst case by what it cost; passed
// reports that the spend is now past a cap (m's own first, else the
// nearest parent's), hit which one.
func (m *Meter) Settle(worst, cost float64, u providers.Usage) (passed bool, hit Limit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roll()
	if m.shared() {
		m.settleShared(worst, cost)
	} else {
		m.reserved = max(m.reserved-worst, 0)
		m.spent += cost
	}
	m.unknown = m.unknown || u.PriceUnknown
	m.estimated = m.estimated || u.Estimated
	own := m.cap > 0 && m.spent > m.cap
	if m.parent != nil {
		if passed, hit := m.parent.Settle(worst, cost, u); passed && !own {
			return true, hit
		}
	}
	return own, m.limitLocked()
}

// Bound is the nearest cap over m's calls (m's own, else a parent's), 0
// when none.
func (m *Meter) Bound() float64 {
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

// Snapshot is what m spent, its cap, and whether spent is a lower bound
// (a call had no price) or Parley's count (a stream ended early).
func (m *Meter) Snapshot() (spent, capUSD float64, unknown, estimated bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent, m.cap, m.unknown, m.estimated
}
