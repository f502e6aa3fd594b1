package serve

import (
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
func (m *manager) evict() {
	cutoff := time.Now().Add(-m.srv.opts.IdleAfter)
	var victims []*session
	m.mu.Lock()
	for len(m.live)-len(victims) > m.srv.opts.MaxLive {
		var oldest *session
		for _, ss := range m.live {
			if ss.clients > 0 || !ss.lastUsed.Before(cutoff) || ss.busy() || contains(victims, ss) {
				continue
			}
			if oldest == nil || ss.lastUsed.Before(oldest.lastUsed) {
				oldest = ss
			}
		}
		if oldest == nil {
			break
		}
		victims = append(victims, oldest)
	}
	for _, ss := range victims {
		delete(m.live, ss.id) // later requests load it afresh
	}
	m.mu.Unlock()
	for _, ss := range victims {
		m.drop(ss)
	}
}

func contains(list []*session, ss *session) bool {
	for _, x := range list {
		if x == ss {
			return true
		}
	}
	return false
}
