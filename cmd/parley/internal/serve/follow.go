package serve

// follow keeps the live sessions in step with what other processes (the
// console, `parley ask --session`, `parley mcp`, another serve) save in
// them: ONE watch of the store for the whole server (store.Watch, SQLite's
// data_version, not a scan of the turns); when another connection
// committed, every live session's engine takes in the turns added since it
// last read (debate.Engine.Sync). Their events reach the session's hub —
// the open pages' live streams — each turn carrying its origin.
func (s *Server) follow() {
	changed, stop := s.opts.Store.Watch()
	go func() {
		defer stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-changed:
				for _, ss := range s.sessions.all() {
					_ = ss.eng.Sync(s.ctx) // a failed read is retried on the next change
				}
			}
		}
	}()
}

// all is the live sessions now.
func (m *manager) all() []*session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*session, 0, len(m.live))
	for _, ss := range m.live {
		out = append(out, ss)
	}
	return out
}
