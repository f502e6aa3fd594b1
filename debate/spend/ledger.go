package spend

import (
	"time"
)

// Ledger keeps a spend window's figures where every process that shares
// the window reads and writes them (parley serve's replicas on one
// database: debate/store's spend_window table). A window meter over a
// ledger (NewSharedWindowMeter) is its client: it admits a call only when
// the ledger's one atomic update held the call's worst case under the
// cap, so N processes together never pass the window; its own figures
// are the ledger's last answer.
//
// A ledger that cannot answer (the database is gone) refuses: the meter
// fails closed, as under a NaN cap.
type Ledger interface {
	// Reserve holds worst in the window that starts at start, only when
	// what the window spent, what it holds for calls in flight and worst
	// together fit under capUSD, in one atomic step; it returns the
	// window's figures after it, or as they stood when it refused.
	Reserve(start time.Time, worst, capUSD float64) (ok bool, spent, reserved float64, err error)
	// Settle releases worst from the window starting at held (where it
	// was reserved) and counts cost in the window starting at start (the
	// current one), returning the current window's figures.
	Settle(held, start time.Time, worst, cost float64) (spent, reserved float64, err error)
	// Held is what the window starting at start spent and holds.
	Held(start time.Time) (spent, reserved float64, err error)
}

// NewSharedWindowMeter is a meter capped at capUSD over w whose figures
// are kept by ledger, shared with every other process using it.
func NewSharedWindowMeter(capUSD float64, w Window, ledger Ledger, now func() time.Time) *Meter {
	m := NewWindowMeter(capUSD, w, 0, now)
	m.window.ledger = ledger
	m.window.holds = map[time.Time]float64{}
	m.refreshShared() // a ledger that cannot answer now is read again at the first call
	return m
}

// shared reports whether m's window is kept by a ledger. Called under m.mu.
func (m *Meter) shared() bool { return m.window != nil && m.window.ledger != nil }

// reserveShared is Reserve on a ledger: the ledger's conditional update
// admits the call, then the parents; a parent's refusal gives the hold
// back. Called under m.mu.
func (m *Meter) reserveShared(worst float64) (bool, Limit) {
	w := m.window
	start := w.start
	ok, spent, reserved, err := w.ledger.Reserve(start, worst, m.cap)
	if err != nil { // fail closed, with the last figures known
		l := m.limitLocked()
		l.unreadable = true
		return false, l
	}
	m.spent, m.reserved = spent, reserved
	if !ok {
		return false, m.limitLocked()
	}
	if m.parent != nil { // child before parent: the one lock order
		if ok, hit := m.parent.Reserve(worst); !ok {
			if spent, reserved, err := w.ledger.Settle(start, start, worst, 0); err == nil {
				m.spent, m.reserved = spent, reserved
			}
			return false, hit
		}
	}
	w.holds[start] += worst
	return true, m.limitLocked()
}

// settleShared is Settle on a ledger: worst leaves the window it was held
// in (the oldest of m's holds that has it, since a call reserved before
// the hour turned settles after), cost counts in the current window.
// Called under m.mu.
func (m *Meter) settleShared(worst, cost float64) {
	w := m.window
	held, found := w.start, false
	for start, h := range w.holds {
		if h >= worst-holdSlack && (!found || start.Before(held)) {
			held, found = start, true
		}
	}
	if h := w.holds[held] - worst; h > holdSlack {
		w.holds[held] = h
	} else {
		delete(w.holds, held)
	}
	spent, reserved, err := w.ledger.Settle(held, w.start, worst, cost)
	if err != nil {
		m.spent += cost // the ledger will be read again at the next call
		return
	}
	m.spent, m.reserved = spent, reserved
}

// holdSlack absorbs the rounding of sums of float worst cases.
const holdSlack = 1e-12

// refreshShared reads the window's figures back from the ledger (what
// every process spent and holds); false when the ledger cannot answer.
// Called under m.mu.
func (m *Meter) refreshShared() bool {
	spent, reserved, err := m.window.ledger.Held(m.window.start)
	if err != nil {
		return false
	}
	m.spent, m.reserved = spent, reserved
	return true
}

// idleShared reports whether m holds no call of its own in flight (other
// processes' calls are theirs). Called under m.mu.
func (m *Meter) idleShared() bool { return len(m.window.holds) == 0 }
