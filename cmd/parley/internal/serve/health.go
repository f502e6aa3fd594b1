package serve

import (
	"context"
	"net/http"
	"time"
)

// readyTimeout bounds /readyz's look at the database.
const readyTimeout = 2 * time.Second

// withHealth answers a load balancer's probes ahead of the host guard,
// the token and the rate limits (a probe comes by address, with no
// token): GET /healthz is the process (200 while it serves), GET /readyz
// whether it should be sent work — 200 when the database answers at this
// binary's schema version, 503 when it does not or once the server is
// shutting down. The body says no more than that: why is in the server's
// log, not in an unauthenticated answer.
func (s *Server) withHealth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == "/healthz" {
			_, _ = w.Write([]byte("ok\n"))
			return
		}
		if s.ctx.Err() != nil {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		if s.opts.Store != nil {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			defer cancel()
			if err := s.opts.Store.Ready(ctx); err != nil {
				s.logf("readyz: %v", err)
				http.Error(w, "database not ready", http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}
