package netguard

import (
	"net/netip"
	"strings"
	"testing"
)

func TestInternalKind(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"169.254.169.254": "a cloud metadata address", "fd00:ec2::254": "a cloud metadata address",
		"127.0.0.1": "a loopback address", "::1": "a loopback address", "::ffff:127.0.0.1": "a loopback address",
		"10.0.0.1": "a private address", "172.16.5.4": "a private address", "192.168.1.1": "a private address",
		"fd12:3456::1": "a private address", "100.64.0.1": "a private address",
		"169.254.1.1": "a link-local address", "fe80::1": "a link-local address",
		"0.0.0.0": "an unspecified address", "::": "an unspecified address", "239.1.2.3": "a multicast address",
		"8.8.8.8": "", "2606:4700:4700::1111": "", "93.184.215.14": "",
	} {
		if got := InternalKind(netip.MustParseAddr(addr)); got != want {
			t.Errorf("internalKind(%s) = %q, want %q", addr, got, want)
		}
	}
	if err := Control("hint")("tcp", "169.254.169.254:80", nil); err == nil || !strings.Contains(err.Error(), "metadata") {
		t.Errorf("dialing the metadata address: %v", err)
	}
	if err := Control("hint")("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("dialing a public address: %v", err)
	}
}
