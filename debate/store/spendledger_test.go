package store

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/providers"
)

// windowClock is the windows' clock: the test says what time it is.
type windowClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *windowClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *windowClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// limitsOn opens the database at path as a server of its own would (its
// own store and pool) and builds its spend windows.
func limitsOn(t *testing.T, path string, w Windows, clock *windowClock) (*Store, *SpendLimits) {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	l, err := st.SpendLimits(context.Background(), w, clock.now)
	if err != nil {
		t.Fatal(err)
	}
	return st, l
}

// windowsOf is the meter user's sessions count under.
func windowsOf(t *testing.T, l *SpendLimits, user string) *spend.Meter {
	t.Helper()
	m, err := l.For(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// windowRow is a spend_window row as the database holds it.
func windowRow(t *testing.T, st *Store, server bool, user, setting string, start time.Time) (spent, reserved float64) {
	t.Helper()
	if err := st.r.QueryRowContext(context.Background(), `SELECT spent, reserved FROM spend_window WHERE `+windowKey,
		server, user, setting, formatTime(start)).Scan(&spent, &reserved); err != nil {
		t.Fatalf("the %s row of %q: %v", setting, user, err)
	}
	return spent, reserved
}

// Two servers on one database (each its own store, as two replicas), 20
// calls at once from 20 users, split over both, against a server window
// that admits 5 worst cases: exactly 5 are admitted, the refusals name
// the server's window with the database's figures, the row never holds
// more than the cap, and the users refused hold nothing (a parent's
// refusal gives the user's hold back).
func TestSpendWindowIsOneAtomicUpdateAcrossServers(t *testing.T) {
	path := testDB(t)
	clock := &windowClock{t: time.Date(2026, 11, 28, 13, 10, 0, 0, time.UTC)}
	w := Windows{PerHour: 0.05, ServerPerHour: 0.05}
	stA, a := limitsOn(t, path, w, clock)
	_, b := limitsOn(t, path, w, clock)
	const calls, worst, capUSD = 20, 0.009, 0.05
	var admitted atomic.Int64
	refusals := make(chan *spend.CapError, calls)
	held := make(chan *spend.Meter, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			l := a
			if i%2 == 1 {
				l = b
			}
			windows, err := l.For(context.Background(), fmt.Sprintf("u%02d", i))
			if err != nil {
				t.Error(err)
				return
			}
			session := spend.NewMeter(0, 0)
			session.Under(windows)
			ok, hit := session.Reserve(worst)
			if !ok {
				refusals <- hit.Refusal(spend.CapError{WorstUSD: worst})
				return
			}
			admitted.Add(1)
			held <- session
		})
	}
	wg.Wait()
	close(refusals)
	close(held)
	if got := admitted.Load(); got != 5 {
		t.Fatalf("%d of %d calls admitted under a window of 5 worst cases, want exactly 5", got, calls)
	}
	hour := clock.now().Truncate(time.Hour)
	for ce := range refusals {
		if ce.Reason != spend.CapWindow || ce.Limit != spend.ServerLimitPerHour || ce.CapUSD != capUSD || ce.SpentUSD+ce.ReservedUSD+worst <= capUSD {
			t.Errorf("refusal %+v: want the server's hour, with figures that leave no room", ce)
		}
	}
	spent, reserved := windowRow(t, stA, true, "", spend.ServerLimitPerHour, hour)
	if spent != 0 || math.Abs(reserved-5*worst) > 1e-12 || spent+reserved > capUSD {
		t.Fatalf("the server's hour holds spent %v reserved %v, want 0 and 5 × %v", spent, reserved, worst)
	}
	holding := 0
	for i := range calls {
		s, r := windowRow(t, stA, false, fmt.Sprintf("u%02d", i), spend.LimitPerHour, hour)
		if s != 0 || (r != 0 && math.Abs(r-worst) > 1e-12) {
			t.Errorf("user u%02d's hour holds spent %v reserved %v, want nothing or one worst case", i, s, r)
		}
		if r != 0 {
			holding++
		}
	}
	if holding != 5 {
		t.Errorf("%d users' windows hold a call, want the 5 admitted (a refused call's hold is given back)", holding)
	}
	for m := range held {
		m.Settle(worst, 0.002, providers.Usage{})
	}
	spent, reserved = windowRow(t, stA, true, "", spend.ServerLimitPerHour, hour)
	if math.Abs(spent-5*0.002) > 1e-12 || reserved != 0 {
		t.Fatalf("after settling, the server's hour holds spent %v reserved %v, want 0.01 and 0", spent, reserved)
	}
}

// The cap itself is room: a call whose worst case brings the window
// exactly to its cap is admitted, the next one is not (amounts exact in
// binary, so the comparison alone decides).
func TestSpendWindowAdmitsUpToTheCap(t *testing.T) {
	path := testDB(t)
	clock := &windowClock{t: time.Date(2026, 11, 28, 13, 10, 0, 0, time.UTC)}
	_, l := limitsOn(t, path, Windows{ServerPerHour: 0.5}, clock)
	m := windowsOf(t, l, "ada")
	for i, want := range []bool{true, true, false} {
		if ok, _ := m.Reserve(0.25); ok != want {
			t.Fatalf("call %d of $0.25 under $0.50: admitted %v, want %v", i+1, ok, want)
		}
	}
	if full := m.WindowFull(); full == nil || full.ReservedUSD != 0.5 {
		t.Fatalf("a window held to its cap: WindowFull %+v", full)
	}
}

// A call reserved in one hour and settled in the next gives its hold back
// to the hour it was held in and counts its cost in the new one; a server
// started afterwards reads the new hour's spend from the database.
func TestSpendWindowSettlesAcrossTheHour(t *testing.T) {
	path := testDB(t)
	clock := &windowClock{t: time.Date(2026, 11, 28, 13, 59, 0, 0, time.UTC)}
	st, l := limitsOn(t, path, Windows{ServerPerHour: 1}, clock)
	m := windowsOf(t, l, "ada")
	if ok, _ := m.Reserve(0.4); !ok {
		t.Fatal("refused under an empty window")
	}
	clock.set(time.Date(2026, 11, 28, 14, 0, 30, 0, time.UTC))
	m.Settle(0.4, 0.125, providers.Usage{})
	if s, r := windowRow(t, st, true, "", spend.ServerLimitPerHour, time.Date(2026, 11, 28, 13, 0, 0, 0, time.UTC)); s != 0 || r != 0 {
		t.Errorf("13:00 holds spent %v reserved %v after its call settled, want nothing", s, r)
	}
	if s, r := windowRow(t, st, true, "", spend.ServerLimitPerHour, time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)); s != 0.125 || r != 0 {
		t.Errorf("14:00 holds spent %v reserved %v, want the call's cost 0.125", s, r)
	}
	_, again := limitsOn(t, path, Windows{ServerPerHour: 1}, clock)
	m2 := windowsOf(t, again, "bob")
	if got := m2.Spent(); got != 0.125 {
		t.Errorf("a server started later reads %v spent this hour, want 0.125", got)
	}
	if m.Idle() != true {
		t.Error("every call settled, yet the window meter holds one")
	}
}

// No amount a ledger cannot hold reaches it: a NaN or negative worst case
// is refused (fail closed), whatever the window's room.
func TestSpendWindowRefusesNonAmounts(t *testing.T) {
	path := testDB(t)
	clock := &windowClock{t: time.Date(2026, 11, 28, 13, 10, 0, 0, time.UTC)}
	_, l := limitsOn(t, path, Windows{ServerPerHour: 1}, clock)
	m := windowsOf(t, l, "ada")
	for _, v := range []float64{math.NaN(), math.Inf(1), -0.5} {
		if ok, _ := m.Reserve(v); ok {
			t.Errorf("a worst case of %v was admitted", v)
		}
	}
}
