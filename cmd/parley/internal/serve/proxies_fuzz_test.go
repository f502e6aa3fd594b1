package serve

import (
	"net/http"
	"strings"
	"testing"
)

// Whatever X-Forwarded-For says, the client is the peer or an untrusted
// address written in the header (or a trusted hop of it), never a name
// made up from other text, and the header is never read from a peer that
// is not a trusted proxy.
func FuzzForwardedFor(f *testing.F) {
	for _, seed := range []string{"203.0.113.7", "1.1.1.1, 203.0.113.7, 10.0.0.2", "junk", "", ",,,", "[::1]:80", "fe80::1%eth0",
		"::ffff:10.0.0.1", strings.Repeat("10.1.1.1,", 30), "2001:db8::1, fd00::1"} {
		f.Add("10.0.0.1:9000", seed)
		f.Add("192.0.2.9:9000", seed)
	}
	p, err := parseProxies([]string{"10.0.0.0/8", "fd00::/8"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, peer, xff string) {
		r := &http.Request{RemoteAddr: peer, Header: http.Header{"X-Forwarded-For": {xff}}}
		got := p.client(r)
		from, ok := peerIP(peer)
		if !ok || !p.trusts(from) {
			if got != from {
				t.Fatalf("peer %q (untrusted), X-Forwarded-For %q: %v", peer, xff, got)
			}
			return
		}
		if got == from {
			return
		}
		if !got.IsValid() || got.Zone() != "" {
			t.Fatalf("peer %q, X-Forwarded-For %q: %v", peer, xff, got)
		}
		found := false
		for _, e := range strings.Split(xff, ",") {
			if ip, ok := forwardedIP(strings.TrimSpace(e)); ok && ip == got {
				found = true
			}
		}
		if !found {
			t.Fatalf("peer %q, X-Forwarded-For %q: %v is not in the header", peer, xff, got)
		}
	})
}
