package serve

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// guard wraps every route of the server (the API, the pages, /login and
// whatever else is mounted on the mux): the Host header must name this
// server, a state-changing request must come from its own origin, and an
// API body must be JSON. It runs before the token, so it protects a server
// without one too.
type guard struct {
	hosts    []hostRule
	bound    netip.Addr // the address Serve listens on (invalid: not known)
	anyIP    bool       // bound to 0.0.0.0 or [::]: any IP literal is this machine's
	crossOrg *http.CrossOriginProtection
	next     http.Handler
}

// hostRule is one entry of serve.hosts: a name, and a port when given.
type hostRule struct{ name, port string }

func newGuard(hosts []string, next http.Handler) (*guard, error) {
	g := &guard{crossOrg: http.NewCrossOriginProtection(), next: next}
	for _, h := range hosts {
		rule := hostRule{name: strings.ToLower(strings.TrimSuffix(h, "."))}
		if name, port, err := net.SplitHostPort(h); err == nil {
			rule = hostRule{name: strings.ToLower(strings.TrimSuffix(name, ".")), port: port}
		}
		if rule.name == "" || strings.ContainsAny(rule.name, "/?#@ ") {
			return nil, fmt.Errorf("serve.hosts: %q is not a host name", h)
		}
		g.hosts = append(g.hosts, rule)
		// A page served under a listed name posts with that name as its
		// Origin even when a proxy rewrites the Host header.
		for _, scheme := range []string{"http://", "https://"} {
			if err := g.crossOrg.AddTrustedOrigin(scheme + h); err != nil {
				return nil, fmt.Errorf("serve.hosts: %q: %w", h, err)
			}
		}
	}
	g.crossOrg.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from := "Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site")
		if o := r.Header.Get("Origin"); o != "" {
			from = "Origin " + o
		}
		refuse(w, r, http.StatusForbidden, "cross_origin",
			"cross-origin request refused: a page of another origin (%q) may not send %s requests to this server", from, r.Method)
	}))
	return g, nil
}

// bind records the address the server listens on: its Host is accepted.
func (g *guard) bind(addr net.Addr) {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return
	}
	g.bound = ap.Addr().Unmap()
	g.anyIP = g.bound.IsUnspecified()
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		refuse(w, r, http.StatusForbidden, "bad_host",
			"Host %q is not this server's: use its address, localhost, or a name listed in serve.hosts", r.Host)
		return
	}
	g.crossOrg.Handler(http.HandlerFunc(g.checkBody)).ServeHTTP(w, r)
}

// checkBody refuses an API request whose body is not declared JSON: a
// form or text/plain body is what a page of another site can send without
// asking first, so none is read as a command.
func (g *guard) checkBody(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") && carriesBody(r.Method) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			refuse(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type",
				"the request body must be JSON sent as Content-Type: application/json (got %q; curl sends both with --json)", r.Header.Get("Content-Type"))
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// carriesBody: the methods whose body the API reads (a DELETE has none).
func carriesBody(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// hostAllowed: a loopback name or address, the bound address (any IP
// literal when bound to all interfaces: a rebinding attack needs a name),
// or a name of serve.hosts.
func (g *guard) hostAllowed(hostport string) bool {
	name, port := hostport, ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		name, port = h, p
	}
	name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
	if name == "" {
		return false
	}
	if name == "localhost" {
		return true
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		ip = ip.Unmap()
		return ip.IsLoopback() || ip == g.bound || g.anyIP
	}
	for _, rule := range g.hosts {
		if rule.name == name && (rule.port == "" || rule.port == port) {
			return true
		}
	}
	return false
}

// refuse answers a refused request: the API's JSON error shape under
// /api/, plain text elsewhere.
func refuse(w http.ResponseWriter, r *http.Request, status int, code, format string, args ...any) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeError(w, errorf(status, code, format, args...))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, format+"\n", args...)
}
