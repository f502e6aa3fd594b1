package serve

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// metadataAddrs are the cloud instance-metadata endpoints (they hand out
// credentials to whatever asks from the machine).
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack…
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// sharedAddrSpace is 100.64.0.0/10 (carrier-grade NAT, and cloud-internal
// services): not the public internet either.
var sharedAddrSpace = netip.MustParsePrefix("100.64.0.0/10")

// internalKind says why a webhook may not reach ip ("" when it may).
func internalKind(ip netip.Addr) string {
	ip = ip.Unmap()
	for _, m := range metadataAddrs {
		if ip == m {
			return "a cloud metadata address"
		}
	}
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address"
	case ip.IsPrivate(), sharedAddrSpace.Contains(ip):
		return "a private address"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	}
	return ""
}

// errInternalTarget is a webhook connection refused for where it goes.
type errInternalTarget struct {
	ip   netip.Addr
	kind string
}

func (e *errInternalTarget) Error() string {
	return fmt.Sprintf("refused: %s is %s (allow_private: true on this webhook allows it)", e.ip, e.kind)
}

// refuseInternal is a net.Dialer Control: it runs on the address each
// connection really goes to, after name resolution, so a name that
// resolves (or is re-resolved) to an internal address is caught too.
func refuseInternal(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused: %q is not an IP address and port", address)
	}
	if kind := internalKind(ap.Addr()); kind != "" {
		return &errInternalTarget{ip: ap.Addr().Unmap(), kind: kind}
	}
	return nil
}

// hookClient posts webhooks: no redirect is followed (a 3xx is a failed
// delivery), no proxy is used (its address would hide the target's), and
// unless allowPrivate every connection to an internal address is refused.
func hookClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !allowPrivate {
		dialer.Control = refuseInternal
	}
	transport := &http.Transport{
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{
		Timeout:       10 * time.Second,
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// deliveryProblem is a failed attempt's error as logged: never the URL
// (url.Error repeats it, secrets and all), the refusal as it is.
func deliveryProblem(err error) string {
	var internal *errInternalTarget
	if errors.As(err, &internal) {
		return internal.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
