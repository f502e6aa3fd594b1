// Package serve is parley serve: the debate over HTTP. It is one more
// consumer of the engine and its events — a REST + SSE API under /api/v1/,
// seed 001's start/step, the MAGI council, custom agents, webhooks and the
// web pages (package web) — with no mode logic of its own.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
)

// drainTimeout bounds how long a session's subscribers get to take the
// last events when it ends.
const drainTimeout = 10 * time.Second

// Options configure a Server.
type Options struct {
	// Config is the configuration sessions are built from (validated).
	Config *config.Config
	// Agents binds a session's configured agents to their providers (the
	// CLI's function: real providers, or the demo agents with --demo).
	Agents func(*config.Config) ([]*debate.Agent, error)
	// Store keeps the sessions, custom agents and webhook deliveries.
	Store *store.Store
	// Token, when set, is required of every /api/ request (Bearer, or a
	// login session's cookie) and of the pages (the cookie POST /login sets).
	Token string
	// TLSCert and TLSKey, when set, are the PEM files Serve answers HTTPS with.
	TLSCert, TLSKey string
	// Getenv reads webhook secrets (nil: none is set).
	Getenv func(string) string
	// MCP, when set, is the MCP server's streamable HTTP endpoint, served at
	// /mcp behind the same checks as the API.
	MCP http.Handler
	// Pages, when set, serves the web view (every path outside /api/ and /login).
	Pages http.Handler
	// MaxCost is the operator's ceiling per session in USD (0: none): a
	// session's max_cost may not exceed it, and sessions that ask for none
	// get it.
	MaxCost float64
	// Limits are the spend windows (serve.max_cost_per_hour and _per_day)
	// every session counts under, shared with the MCP server of /mcp (nil:
	// none).
	Limits *store.SpendLimits
	// Rate limits each user's requests that start work (default:
	// serve.rate_limit, else 60 a minute, burst 20).
	Rate Rate
	// MaxBody bounds request bodies (default 1 MiB).
	MaxBody int64
	// ReplayEvents is how many events of a session SSE clients can catch up on (default 4096).
	ReplayEvents int
	// ReplayBytes bounds the JSON of those events per session (default 4 MiB).
	ReplayBytes int
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
	auth     *auth
	limits   connLimits
	streams  *streams // the open event streams, capped
	conns    atomic.Int64
	guard    *guard // wraps mux: every request passes it
	proxies  proxies
	root     http.Handler // guard, behind the trusted proxies' client address
	tls      *tls.Config
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
		opts.Rate.PerMinute, opts.Rate.Burst = opts.Config.Serve.RateLimit.Rate()
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 1 << 20
	}
	if opts.ReplayEvents <= 0 {
		opts.ReplayEvents = 4096
	}
	if opts.ReplayBytes <= 0 {
		opts.ReplayBytes = 4 << 20
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
	s := &Server{opts: opts, mux: http.NewServeMux(), limiter: newLimiter(opts.Rate), auth: newAuth(opts.Token),
		limits: limitsOf(opts.Config.Serve)}
	s.streams = &streams{max: s.limits.streams, perUser: s.limits.perUser, byUser: map[string]int{}}
	var err error
	if s.guard, err = newGuard(opts.Config.Serve.Hosts, s.mux); err != nil {
		return nil, err
	}
	if s.proxies, err = parseProxies(opts.Config.Serve.TrustedProxies); err != nil {
		return nil, err
	}
	s.root = s.withHealth(s.proxies.withClient(s.guard))
	if s.tls, err = loadTLS(opts.TLSCert, opts.TLSKey); err != nil {
		return nil, err
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.sessions = newManager(s)
	s.sessions.sweep()
	s.follow()
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
	s.mountOpenAI()
	s.mux.HandleFunc("GET /login", s.login)
	s.mux.HandleFunc("POST /login", s.login)
	s.mux.HandleFunc("POST /logout", s.logout)
	if opts.MCP != nil { // behind the guard like every route, and the token
		s.mux.Handle("/mcp", s.api(s.serveMCP))
	}
	if opts.Pages != nil {
		s.mux.Handle("/", s.pages(opts.Pages))
	}
	return s, nil
}

// Handler is the server's whole HTTP handler (for httptest): every route
// behind the host, origin and body checks.
func (s *Server) Handler() http.Handler { return s.root }

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "parley serve: "+format+"\n", args...)
	}
}

// api wraps an API handler: the token, then the handler's error as JSON.
func (s *Server) api(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r = s.authorize(w, r, true); r == nil {
			return
		}
		if err := h(w, r); err != nil {
			writeError(w, err)
		}
	})
}

// pages guards the web view with the login cookie (static files excepted:
// they hold nothing of the sessions).
func (s *Server) pages(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/static/") {
			if r = s.authorize(w, r, false); r == nil {
				return
			}
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

// MinTokenLen is the shortest token a server on a non-loopback address
// accepts: long enough that guessing it (at the back-off's pace) is hopeless.
const MinTokenLen = 16

// CheckAddr refuses to bind a non-loopback address without a token of at
// least MinTokenLen characters.
func CheckAddr(addr, token string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("--addr %q: %w (e.g. 127.0.0.1:8080)", addr, err)
	}
	if IsLoopback(addr) {
		return nil
	}
	if token == "" {
		return fmt.Errorf("--addr %s is not a loopback address: set PARLEY_SERVE_TOKEN (%d characters or more) so every request must carry it", addr, MinTokenLen)
	}
	if n := utf8.RuneCountInString(token); n < MinTokenLen {
		return fmt.Errorf("--addr %s is not a loopback address: PARLEY_SERVE_TOKEN has %d characters, it needs %d or more (e.g. openssl rand -hex 16)", addr, n, MinTokenLen)
	}
	return nil
}

// loadTLS reads the certificate and key for HTTPS (nil, nil without them).
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("--tls-cert and --tls-key go together: give both PEM files")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// Serve answers on ln until ctx ends, then shuts down gracefully: running
// exchanges are cancelled with their partial text kept, every session's
// recorder is flushed, webhooks get a last moment to go out. ready, when
// given, is told the address first ("listening on http://HOST:PORT").
func (s *Server) Serve(ctx context.Context, ln net.Listener, ready io.Writer) error {
	s.guard.bind(ln.Addr())
	hs := &http.Server{
		Handler:           untimed(s.root),
		ReadHeaderTimeout: s.limits.readHeader,
		ReadTimeout:       s.limits.read,
		IdleTimeout:       s.limits.idle,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		TLSConfig:         s.tls,
		ConnState:         s.countConns,
	}
	ln = newAddrListener(ln, s.limits.perAddr, s.tls, s.proxies)
	scheme := "http"
	if s.tls != nil {
		scheme = "https"
	}
	if ready != nil {
		fmt.Fprintf(ready, "listening on %s://%s\n", scheme, ln.Addr())
	}
	errc := make(chan error, 1)
	go func() {
		if s.tls != nil {
			errc <- hs.ServeTLS(ln, "", "") // the certificate is in TLSConfig
			return
		}
		errc <- hs.Serve(ln)
	}()
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

// countConns keeps the number of open connections (a figure for tests).
func (s *Server) countConns(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.conns.Add(-1)
	}
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
