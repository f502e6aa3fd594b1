package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// proxies are serve.trusted_proxies: the reverse proxies whose
// X-Forwarded-For names the client. Behind one, every connection comes
// from the proxy's address, so the rate limits, the token back-off and the
// connection cap would count the whole team as one client; from a trusted
// proxy the client is the address the proxy says it forwarded for. From
// any other peer the header is ignored: a client writes what it likes in
// it, and believing it would let one client pose as many and spend the
// budget of others.
type proxies []netip.Prefix

// parseProxies reads serve.trusted_proxies: CIDRs or single addresses
// (checked by the configuration; this is its second line of defence).
func parseProxies(list []string) (proxies, error) {
	var p proxies
	for _, s := range list {
		pre, err := netip.ParsePrefix(s)
		if err != nil {
			ip, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("serve.trusted_proxies: %q is neither a CIDR nor an IP address", s)
			}
			ip = ip.Unmap()
			pre = netip.PrefixFrom(ip, ip.BitLen())
		}
		p = append(p, pre.Masked())
	}
	return p, nil
}

// trusts reports whether ip is one of the proxies.
func (p proxies) trusts(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, pre := range p {
		if pre.Contains(ip) {
			return true
		}
	}
	return false
}

// maxHops bounds how many X-Forwarded-For entries are read from the right:
// a chain of real proxies is short, a header a client wrote may be long.
const maxHops = 16

// client is the address a request comes from: the peer, or when the peer
// is a trusted proxy the right-most X-Forwarded-For entry that is not one
// (the entries to its left were written by a client, who may have made
// them up). An entry that is not an address ends the walk at the last
// trusted hop: the limits then count that proxy, never a made-up name.
func (p proxies) client(r *http.Request) netip.Addr {
	peer, ok := peerIP(r.RemoteAddr)
	if !ok || !p.trusts(peer) {
		return peer
	}
	hops := 0
	vals := r.Header.Values("X-Forwarded-For")
	for i := len(vals) - 1; i >= 0; i-- {
		rest := vals[i]
		for rest != "" {
			var entry string
			if j := strings.LastIndexByte(rest, ','); j >= 0 {
				entry, rest = rest[j+1:], rest[:j]
			} else {
				entry, rest = rest, ""
			}
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			if hops++; hops > maxHops {
				return peer
			}
			ip, ok := forwardedIP(entry)
			if !ok {
				return peer
			}
			if !p.trusts(ip) {
				return ip
			}
			peer = ip
		}
	}
	return peer
}

// peerIP is the IP of a host:port (or of a bare IP).
func peerIP(remote string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().Unmap(), true
	}
	ip, err := netip.ParseAddr(strings.Trim(remote, "[]"))
	return ip.Unmap(), err == nil
}

// forwardedIP reads one X-Forwarded-For entry: an IP, with a port or in
// brackets as some proxies write it. A zone is refused (it names an
// interface of the proxy, not a client).
func forwardedIP(entry string) (netip.Addr, bool) {
	if len(entry) > 64 {
		return netip.Addr{}, false
	}
	ip, ok := peerIP(entry)
	if !ok || ip.Zone() != "" {
		return netip.Addr{}, false
	}
	return ip, true
}

type clientKey struct{}

// withClient notes on r the client address the proxies name, when its
// peer is a trusted proxy (clientAddr reads it).
func (p proxies) withClient(next http.Handler) http.Handler {
	if len(p) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ip := p.client(r); ip.IsValid() {
			r = r.WithContext(context.WithValue(r.Context(), clientKey{}, keyOfIP(ip)))
		}
		next.ServeHTTP(w, r)
	})
}
