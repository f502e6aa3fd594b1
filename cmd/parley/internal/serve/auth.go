package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Login sessions: a browser trades the token for a random id once (POST
// /login); the cookie carries that id, never the token, and the id dies
// after sessionTTL or at POST /logout.
const (
	sessionCookie = "parley_session"
	sessionTTL    = 12 * time.Hour
	maxLogins     = 4096 // live login sessions kept; past it the oldest goes
	// freeFailures wrong tokens from one client address cost nothing;
	// each further one doubles its wait, up to maxBackoff.
	freeFailures = 5
	maxBackoff   = 15 * time.Minute
	forgetAfter  = time.Hour // a client address with no failure for this long starts afresh
)

// auth keeps the login sessions and the failed attempts per client address.
type auth struct {
	token string
	now   func() time.Time

	mu       sync.Mutex
	sessions map[string]*login    // id → its login session
	failures map[string]*failures // client address → its failed attempts
}

// login is one login session: its expiry, and done, closed when it ends
// (logout, expiry, eviction) so the event streams it opened end too.
type login struct {
	exp  time.Time
	done chan struct{}
}

type failures struct {
	count int
	last  time.Time
	until time.Time // no attempt from this address before then
}

func newAuth(token string) *auth {
	return &auth{token: token, now: time.Now, sessions: map[string]*login{}, failures: map[string]*failures{}}
}

// tokenMatches compares in constant time.
func (a *auth) tokenMatches(given string) bool {
	return subtle.ConstantTimeCompare([]byte(given), []byte(a.token)) == 1
}

// newSession starts a login session and returns its id.
func (a *auth) newSession() string {
	id := rand.Text() + rand.Text() // 2 × 128 bits
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	for k, l := range a.sessions {
		if !now.Before(l.exp) {
			a.endLocked(k)
		}
	}
	for len(a.sessions) >= maxLogins {
		oldest, oldestExp := "", time.Time{}
		for k, l := range a.sessions {
			if oldest == "" || l.exp.Before(oldestExp) {
				oldest, oldestExp = k, l.exp
			}
		}
		a.endLocked(oldest)
	}
	a.sessions[id] = &login{exp: now.Add(sessionTTL), done: make(chan struct{})}
	return id
}

// sessionValid reports a live login session.
func (a *auth) sessionValid(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.sessions[id]
	if ok && !a.now().Before(l.exp) {
		a.endLocked(id)
		return false
	}
	return ok
}

// loginDone is closed when login session id ends (nil when it is not live).
func (a *auth) loginDone(id string) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if l, ok := a.sessions[id]; ok {
		return l.done
	}
	return nil
}

func (a *auth) endSession(id string) {
	a.mu.Lock()
	a.endLocked(id)
	a.mu.Unlock()
}

func (a *auth) endLocked(id string) {
	if l, ok := a.sessions[id]; ok {
		close(l.done)
		delete(a.sessions, id)
	}
}

// blocked is how long addr must still wait before its next attempt.
func (a *auth) blocked(addr string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.failures[addr]
	if f == nil {
		return 0
	}
	return max(f.until.Sub(a.now()), 0)
}

// admit lets one token check from addr go ahead, or says how long addr
// must still wait. The check is charged as a failure before it runs
// (succeeded refunds it), under the same lock as the wait: parallel wrong
// tokens get exactly the checks one after another would (issue 31: 150 at
// once got 11 where 1 was due).
func (a *auth) admit(addr string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if f := a.failures[addr]; f != nil && f.until.After(now) {
		return f.until.Sub(now)
	}
	a.charge(addr, now)
	return 0
}

// charge counts one failed (or, from admit, pending) check from addr.
func (a *auth) charge(addr string, now time.Time) {
	if len(a.failures) > 4096 {
		for k, f := range a.failures {
			if now.Sub(f.last) > forgetAfter {
				delete(a.failures, k)
			}
		}
	}
	f := a.failures[addr]
	if f == nil || now.Sub(f.last) > forgetAfter {
		f = &failures{}
		a.failures[addr] = f
	}
	f.count++
	f.last = now
	if f.count > freeFailures {
		wait := maxBackoff
		if shift := f.count - freeFailures - 1; shift < 10 {
			wait = min(time.Second<<shift, maxBackoff)
		}
		f.until = now.Add(wait)
	}
}

// succeeded forgets addr's failures.
func (a *auth) succeeded(addr string) {
	a.mu.Lock()
	delete(a.failures, addr)
	a.mu.Unlock()
}

// clientAddr is the address a request comes from, as the back-off and the
// rate limits count it: the peer's IP, or the client a trusted proxy names
// (never a header any other client writes), an IPv6 one by its /64, which
// one host usually holds whole.
func clientAddr(r *http.Request) string {
	if c, ok := r.Context().Value(clientKey{}).(string); ok {
		return c
	}
	return addrKey(r.RemoteAddr)
}

// addrKey is the client a host:port stands for: its IP address, an IPv6
// one by its /64 (one machine usually holds the whole /64).
func addrKey(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	return keyOfIP(ip)
}

// keyOfIP is addrKey of a parsed address.
func keyOfIP(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

type credentialKey struct{}

// withCredential notes on the request which credential it carried ("" when
// the server has no token): the rate limits count per credential too.
func withCredential(r *http.Request, cred string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), credentialKey{}, cred))
}

func credentialOf(r *http.Request) string {
	c, _ := r.Context().Value(credentialKey{}).(string)
	return c
}

// authResult is what checking a request's credentials found.
type authResult int

const (
	authOK      authResult = iota
	authMissing            // no credential, or a login session that ended
	authWrong              // a wrong token: counts towards the back-off
)

// authenticate checks the bearer token or the login cookie; cred names the
// credential for the rate limits ("token", or "login:" and a short prefix
// of the session id).
func (s *Server) authenticate(r *http.Request) (cred string, res authResult) {
	if s.auth.token == "" {
		return "", authOK
	}
	if h := r.Header.Get("Authorization"); h != "" {
		given, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || !s.auth.tokenMatches(strings.TrimSpace(given)) {
			return "", authWrong
		}
		return "token", authOK
	}
	if c, err := r.Cookie(sessionCookie); err == nil && s.auth.sessionValid(c.Value) {
		return "login:" + c.Value[:min(8, len(c.Value))], authOK
	}
	return "", authMissing
}

// authorize runs the token check for one request; it answers the request
// itself (401, or 429 while the client address is backing off) and
// returns nil when the request may not go on.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, api bool) *http.Request {
	if s.auth.token == "" {
		return r
	}
	addr := clientAddr(r)
	wait := s.auth.blocked(addr)
	if r.Header.Get("Authorization") != "" && wait == 0 {
		wait = s.auth.admit(addr) // a token to check: charged up front
	}
	if wait > 0 {
		tooManyFailures(w, wait)
		return nil
	}
	cred, res := s.authenticate(r)
	switch res {
	case authOK:
		if cred == "token" {
			s.auth.succeeded(addr)
		}
		return withCredential(r, cred)
	case authWrong: // charged by admit
		s.logf("wrong token from %s", addr)
	}
	if api {
		w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
		writeError(w, errorf(http.StatusUnauthorized, "unauthorized",
			"this server needs Authorization: Bearer <PARLEY_SERVE_TOKEN> (or a browser login at /login)"))
		return nil
	}
	s.loginPage(w, r, http.StatusUnauthorized, "This server needs its token.")
	return nil
}

// tooManyFailures refuses a client backing off, in JSON at every path (the
// login page too): a script retrying reads one shape and Retry-After.
func tooManyFailures(w http.ResponseWriter, wait time.Duration) {
	secs := int((wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, errorf(http.StatusTooManyRequests, "too_many_failures",
		"too many wrong tokens from this address: try again in %d s", secs))
}
