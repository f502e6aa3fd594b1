// Package serve is parley serve: the debate over HTTP. It is one more
// consumer of the engine and its events — a REST + SSE API under /api/v1/,
// seed 001's start/step, the MAGI council, custom agents, webhooks and the
// web pages (package web) — with no mode logic of its own.
package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
)

// drainTimeout bounds how long a session's subscribers get to take the
// last events when it ends.
const drainTimeout = 10 * time.Second

// Options configure a Server.
type Options struct {
	// Config is the configuration sessions are built from (validated).
	Config *debate.Config
	// Agents binds a session's configured agents to their providers (the
	// CLI's function: real providers, or the demo agents with --demo).
	Agents func(*debate.Config) ([]*debate.Agent, error)
	// Store keeps the sessions, custom agents and webhook deliveries.
	Store *store.Store
	// Token, when set, is required of every /api/ request (Bearer) and of
	// the pages (the cookie GET /login?token=… sets).
	Token string
	// Getenv reads webhook secrets (os.Getenv when nil).
	Getenv func(string) string
	// Pages, when set, serves the web view (every path outside /api/ and /login).
	Pages http.Handler
	// Rate limits each user's requests that start work (default 60 a minute, burst 20).
	Rate Rate
	// MaxBody bounds request bodies (default 1 MiB).
	MaxBody int64
	// ReplayEvents is how many events of a session SSE clients can catch up on (default 4096).
	ReplayEvents int
	// WebhookBackoff is the first retry's wait; it doubles (default 1s).
	WebhookBackoff time.Duration
	// WebhookAttempts is how often a delivery is tried (default 4).
	WebhookAttempts int
	// Log receives the server's own messages (nothing when nil).
	Log io.Writer
	// PingEvery is the SSE keep-alive comment interval (default 15s).
	PingEvery time.Duration
	// MaxLive is how many sessions stay in memory (default 256); past it,
	// the least recently used one idle for IdleAfter (default 1m) is
	// unloaded (it stays saved and loads again on its next request).
	MaxLive   int
	IdleAfter time.Duration
}

// Server is the HTTP server of one parley serve.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	routes   []route
	sessions *manager
	hooks    *webhooks
	limiter  *limiter
	// ctx is the server's lifetime: exchanges run under it and requests
	// derive from it, so shutdown cancels both.
	ctx    context.Context
	cancel context.CancelFunc
}

// New builds a server; Serve runs it.
func New(opts Options) (*Server, error) {
	if opts.Config == nil || opts.Agents == nil || opts.Store == nil {
		return nil, errors.New("serve: Config, Agents and Store are required")
	}
	if opts.Rate == (Rate{}) {
		opts.Rate = Rate{PerMinute: 60, Burst: 20}
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 1 << 20
	}
	if opts.ReplayEvents <= 0 {
		opts.ReplayEvents = 4096
	}
	if opts.PingEvery <= 0 {
		opts.PingEvery = 15 * time.Second
	}
	if opts.MaxLive <= 0 {
		opts.MaxLive = 256
	}
	if opts.IdleAfter <= 0 {
		opts.IdleAfter = time.Minute
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), limiter: newLimiter(opts.Rate)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.sessions = newManager(s)
	if len(opts.Config.Webhooks) > 0 {
		s.hooks = newWebhooks(s)
	}
	s.routes = s.apiRoutes()
	for _, rt := range s.routes {
		s.mux.Handle(rt.method+" "+rt.path, s.api(rt.handle))
	}
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(http.StatusNotFound, "not_found", "no API route %s %s", r.Method, r.URL.Path))
	})
	s.mux.HandleFunc("GET /login", s.login)
	if opts.Pages != nil {
		s.mux.Handle("/", s.pages(opts.Pages))
	}
	return s, nil
}

// Handler is the server's whole HTTP handler (for httptest).
func (s *Server) Handler() http.Handler { return s.mux }

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "parley serve: "+format+"\n", args...)
	}
}

// api wraps an API handler: the token, then the handler's error as JSON.
func (s *Server) api(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorised(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
			writeError(w, errorf(http.StatusUnauthorized, "unauthorized", "this server needs Authorization: Bearer <PARLEY_SERVE_TOKEN>"))
			return
		}
		if err := h(w, r); err != nil {
			writeError(w, err)
		}
	})
}

// tokenCookie carries the token for a browser (EventSource sends no headers).
const tokenCookie = "parley_token"

// authorised checks the bearer token or the login cookie, when a token is set.
func (s *Server) authorised(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	given := ""
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		given = strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
	} else if c, err := r.Cookie(tokenCookie); err == nil {
		given = c.Value
	}
	return subtle.ConstantTimeCompare([]byte(given), []byte(s.opts.Token)) == 1
}

// login sets the token cookie so a browser can use the pages and the API:
// GET /login?token=… then a redirect to /.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if s.opts.Token == "" { // nothing to log in to
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.Token)) != 1 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintln(w, "wrong or missing token: open /login?token=<PARLEY_SERVE_TOKEN>")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// pages guards the web view with the token cookie (static files excepted:
// they hold nothing of the sessions).
func (s *Server) pages(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/static/") && !s.authorised(r) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintln(w, "this server needs its token: open /login?token=<PARLEY_SERVE_TOKEN>")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// IsLoopback reports whether addr (host:port) binds only the loopback interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckAddr refuses to bind a non-loopback address without a token.
func CheckAddr(addr, token string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("--addr %q: %w (e.g. 127.0.0.1:8080)", addr, err)
	}
	if !IsLoopback(addr) && token == "" {
		return fmt.Errorf("--addr %s is not a loopback address: set PARLEY_SERVE_TOKEN so every request must carry it", addr)
	}
	return nil
}

// Serve answers on ln until ctx ends, then shuts down gracefully: running
// exchanges are cancelled with their partial text kept, every session's
// recorder is flushed, webhooks get a last moment to go out. ready, when
// given, is told the address first ("listening on http://HOST:PORT").
func (s *Server) Serve(ctx context.Context, ln net.Listener, ready io.Writer) error {
	hs := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
	if ready != nil {
		fmt.Fprintf(ready, "listening on http://%s\n", ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.Close()
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutCtx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Close cancels every running exchange (partial text kept), ends the live
// sessions with their events written, and waits for webhook deliveries.
// The store stays open: its owner closes it.
func (s *Server) Close() {
	s.cancel()
	s.sessions.closeAll()
	if s.hooks != nil {
		s.hooks.close()
	}
}
