// Package netguard keeps Parley's outgoing connections (webhooks, the
// fetch tool) off internal addresses: loopback, private, link-local,
// multicast and cloud-metadata addresses are refused at dial time, on the
// address each connection really goes to, after name resolution, so a
// name that resolves (or re-resolves) to an internal address is caught
// too, and so is every redirect's target.
package netguard

import (
	"fmt"
	"net/netip"
	"syscall"
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

// InternalKind says why a connection may not reach ip ("" when it may).
func InternalKind(ip netip.Addr) string {
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

// Refused is a connection refused for where it goes.
type Refused struct {
	IP   netip.Addr
	Kind string
	Hint string // how the user allows it, e.g. "allow_private: true on this webhook allows it"
}

func (e *Refused) Error() string {
	return fmt.Sprintf("refused: %s is %s (%s)", e.IP, e.Kind, e.Hint)
}

// Control is a net.Dialer Control refusing internal addresses; hint says
// in the refusal how the user allows them.
func Control(hint string) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("refused: %q is not an IP address and port", address)
		}
		if kind := InternalKind(ap.Addr()); kind != "" {
			return &Refused{IP: ap.Addr().Unmap(), Kind: kind, Hint: hint}
		}
		return nil
	}
}
