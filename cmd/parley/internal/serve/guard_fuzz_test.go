package serve

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// A Host header is accepted only when it names localhost, a loopback
// address or a listed host (the guard here binds nothing else).
func FuzzHostAllowed(f *testing.F) {
	for _, seed := range []string{"localhost:8080", "evil.example", "[::1]:80", "127.0.0.1", "parley.lan:1", "PARLEY.LAN.", "[::ffff:127.0.0.1]:1",
		"localhost.evil.example", "", ":80", "[", "proxy.example:8443", "proxy.example:80", "0x7f.1"} {
		f.Add(seed)
	}
	g, err := newGuard([]string{"parley.lan", "proxy.example:8443"}, http.NotFoundHandler())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if !g.hostAllowed(host) {
			return
		}
		name, port := host, ""
		if h, p, err := net.SplitHostPort(host); err == nil {
			name, port = h, p
		}
		name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
		ip, ipErr := netip.ParseAddr(name)
		ok := name == "localhost" || name == "parley.lan" || (name == "proxy.example" && port == "8443") ||
			(ipErr == nil && ip.Unmap().IsLoopback())
		if !ok {
			t.Fatalf("Host %q accepted", host)
		}
	})
}

// The page to return to after a login is always a path of this server.
func FuzzLocalPath(f *testing.F) {
	for _, seed := range []string{"/s/abc", "//evil.example", "/\\evil", "https://evil.example", "", "/login?x", "/%2F%2Fevil", "/\t/evil"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, next string) {
		p := localPath(next)
		if p == "/" {
			return
		}
		u, err := url.Parse(p)
		// Browsers drop tabs and line breaks from a URL and read a
		// backslash as "/": none may be left to turn the path into "//host".
		if p != next || err != nil || u.Host != "" || u.Scheme != "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") ||
			strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
			t.Fatalf("localPath(%q) = %q", next, p)
		}
	})
}
