package serve

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/netguard"
)

// refuseInternal refuses a webhook's connection to an internal address
// (netguard), naming the setting that allows it.
var refuseInternal = netguard.Control("allow_private: true on this webhook allows it")

// errInternalTarget is a webhook connection refused for where it goes.
type errInternalTarget = netguard.Refused

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
