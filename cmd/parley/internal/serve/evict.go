package serve

import (
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// watched counts an open event stream on the session (a watched session is
// never unloaded) and returns the function that uncounts it. mu is the
// manager's.
func (ss *session) watched(mu *sync.Mutex) func() {
	mu.Lock()
	ss.clients++
	mu.Unlock()
	return func() {
		mu.Lock()
		ss.clients--
		ss.lastUsed = time.Now()
		mu.Unlock()
	}
}

// evict unloads the least recently used sessions while more than MaxLive
// are in memory: only ones with no exchange running, no event stream open
// and no request for IdleAfter. They stay saved; the next request loads
// them again.
//
// Its cost is proportional to what it unloads: one pass over the live
// sessions and a sort of the idle ones under m.mu (a few milliseconds for
// thousands), then each one is dropped outside it, so a request never
// waits for an unloading. Evictions run one at a time.
func (m *manager) evict() int {
	m.evictMu.Lock()
	defer m.evictMu.Unlock()
	victims := m.victims()
	for _, v := range victims {
		m.unload(v)
	}
	return len(victims)
}

// giveBackAfter is how many sessions an idle sweep unloads before it hands
// the freed memory back to the system at once: the runtime's own scavenger
// returns it over minutes, and a server's RSS is what its host sees.
const giveBackAfter = 32

// evictSoon has an eviction run in the background: one goroutine however
// many sessions arrive meanwhile (each arrival asks for one more round).
func (m *manager) evictSoon() {
	m.again.Store(true)
	if !m.evicting.CompareAndSwap(false, true) {
		return
	}
	go func() {
		for {
			for m.again.Swap(false) {
				m.evict()
			}
			m.evicting.Store(false)
			// An arrival between the last round and here found one running.
			if !m.again.Load() || !m.evicting.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}

// victim is a session taken out of the live ones, its loading lock held
// so nothing loads it again before its recorder has written everything.
type victim struct {
	ss   *session
	lock *sync.Mutex
}

// hardLive is how many times MaxLive may be in memory before recency stops
// protecting a session: past it the least recently used sessions with no
// exchange running and no event stream open are unloaded, down to
// (hardLive-1) × MaxLive, even if used within IdleAfter. Without it a
// server answering OpenAI-door requests held every session of the last
// IdleAfter (6,000 at 100 a second, three goroutines and ~17 KB of heap
// each) whatever MaxLive said; the most recent ones, which a follower may
// still come for, stay.
const hardLive = 4

// victims takes the sessions to unload out of the live ones: beyond
// MaxLive those idle for IdleAfter, beyond hardLive × MaxLive any not in
// use, the least recently used first. Until the first live session can be
// idle (quietUntil) it looks at none: every new session asks for an
// eviction, and a scan of a thousand sessions each time made a request's
// CPU grow with the sessions live.
func (m *manager) victims() []victim {
	now := time.Now()
	cutoff := now.Add(-m.srv.opts.IdleAfter)
	m.mu.Lock()
	defer m.mu.Unlock()
	maxLive := m.srv.opts.MaxLive
	excess := len(m.live) - maxLive
	if excess <= 0 {
		return nil
	}
	hard := 0 // > 0: recency no longer protects this many
	if len(m.live) > hardLive*maxLive {
		hard = len(m.live) - (hardLive-1)*maxLive
	}
	if hard == 0 && now.Before(m.quietUntil) {
		return nil
	}
	var idle []*session
	for _, ss := range m.live {
		if ss.clients == 0 && !ss.busy() && (hard > 0 || ss.lastUsed.Before(cutoff)) {
			idle = append(idle, ss)
		}
	}
	slices.SortFunc(idle, func(a, b *session) int { return a.lastUsed.Compare(b.lastUsed) })
	var out []victim
	for _, ss := range idle {
		if len(out) == excess || (len(out) >= hard && !ss.lastUsed.Before(cutoff)) {
			break
		}
		if v, ok := m.takeLocked(ss); ok {
			out = append(out, v)
		}
	}
	// The next time a session left here can be idle. One past the cutoff
	// already but in use is counted again when its stream closes (that
	// sets lastUsed); one whose exchange outlived IdleAfter waits for this
	// time, or the idle sweep.
	m.quietUntil = time.Time{}
	for _, ss := range m.live {
		if !ss.lastUsed.Before(cutoff) {
			if at := ss.lastUsed.Add(m.srv.opts.IdleAfter); m.quietUntil.IsZero() || at.Before(m.quietUntil) {
				m.quietUntil = at
			}
		}
	}
	return out
}

// takeLocked takes ss out of the live sessions unless a request is loading
// it at this moment; the caller holds m.mu.
func (m *manager) takeLocked(ss *session) (victim, bool) {
	lock := m.loading[ss.id]
	if lock == nil {
		lock = &sync.Mutex{}
		m.loading[ss.id] = lock
	}
	if !lock.TryLock() {
		return victim{}, false
	}
	delete(m.live, ss.id) // later requests load it afresh, once it is written
	return victim{ss, lock}, true
}

// unload drops a session taken out of the live ones; then requests for it
// load it from the store.
func (m *manager) unload(v victim) {
	m.drop(v.ss)
	v.lock.Unlock()
}

// sweep runs evict every IdleAfter (at most once a second), so sessions
// past MaxLive leave memory once idle even when no new session comes to
// set it off.
func (m *manager) sweep() {
	tick := time.NewTicker(max(m.srv.opts.IdleAfter, time.Second))
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-m.srv.ctx.Done():
				return
			case <-tick.C:
				if m.evict() >= giveBackAfter {
					debug.FreeOSMemory() // one collection, at most once per sweep, off any request's path
				}
			}
		}
	}()
}
