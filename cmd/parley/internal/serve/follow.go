package serve

import "time"

// follow keeps the live sessions in step with what other processes (the
// console, `parley ask --session`, `parley mcp`, another serve) save in
// them: ONE watch of the store for the whole server (store.Watch, SQLite's
// data_version, not a scan of the turns); when a connection committed, one
// indexed query (store.Touched) names the sessions updated since, and only
// those that are live take in the turns added since they last read
// (debate.Engine.Sync). Their events reach the session's hub — the open
// pages' live streams — each turn carrying its origin. (Every live session
// used to re-read its turns on every commit: 38 % of a busy server's CPU.)
func (s *Server) follow() {
	changed, stop := s.opts.Store.Watch()
	go func() {
		defer stop()
		seen := newTouches(time.Now())
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-changed:
				list, err := s.opts.Store.Touched(s.ctx, seen.since())
				if err != nil {
					continue // read again on the next change
				}
				for _, ss := range s.sessions.liveOf(seen.fresh(list)) {
					_ = ss.eng.Sync(s.ctx) // a failed read is retried on the session's next change
				}
			}
		}
	}()
}

// followBack is how far before the latest update seen each read looks: a
// writer stamps updated_time from its clock before it commits, so a slow
// transaction can land with a time before one already seen. A writer
// slower than this is read at the session's next change, or when the
// session next runs an exchange (its lease reads what it missed).
const followBack = 10 * time.Second

// touches remembers the updates already taken in, within followBack of
// the latest, so a session is synced once per update.
type touches struct {
	latest time.Time
	seen   map[string]time.Time
}

func newTouches(start time.Time) *touches {
	return &touches{latest: start, seen: map[string]time.Time{}}
}

func (t *touches) since() time.Time { return t.latest.Add(-followBack) }

// fresh is the sessions of list updated since they were last seen.
func (t *touches) fresh(list map[string]time.Time) []string {
	var out []string
	for id, at := range list {
		if prev, ok := t.seen[id]; ok && !at.After(prev) {
			continue
		}
		t.seen[id] = at
		out = append(out, id)
		if at.After(t.latest) {
			t.latest = at
		}
	}
	cut := t.since()
	for id, at := range t.seen {
		if at.Before(cut) {
			delete(t.seen, id)
		}
	}
	return out
}

// liveOf is the sessions of ids that are live now.
func (m *manager) liveOf(ids []string) []*session {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*session
	for _, id := range ids {
		if ss := m.live[id]; ss != nil {
			out = append(out, ss)
		}
	}
	return out
}
