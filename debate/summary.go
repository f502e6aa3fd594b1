package debate

import (
	"strconv"
	"time"

	"github.com/parleyhq/parley/providers"
)

// SessionSummary is one saved session as the lists show it (the CLI,
// the console's Ctrl+S, the web page): what it is, how far it went and
// what it cost.
type SessionSummary struct {
	SessionInfo
	Turns        int       `json:"turns"`
	Tokens       int       `json:"tokens"` // in and out, every turn
	Cost         float64   `json:"cost_usd"`
	LastActivity time.Time `json:"last_activity"`
	// PriceUnknown: a turn's model had no price, so Cost is a lower bound;
	// Estimated: a turn's usage was Parley's count (a cut stream).
	PriceUnknown bool `json:"price_unknown,omitempty"`
	Estimated    bool `json:"estimated,omitempty"`
}

// CostText is the cost as lists show it: "$0.0123", "~$0.0123"
// (estimated), "$?" or "≥ $0.0123" (a model had no price).
func (s SessionSummary) CostText() string {
	return providers.FormatSpend(s.Cost, s.PriceUnknown, s.Estimated)
}

// ActivityAgo says when a session was last active, as lists need it:
// relative today ("5 min ago"), a local date and time before.
func ActivityAgo(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "-"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min ago" // not fmt: a session list says it 10,000 times
	case d < 24*time.Hour:
		return strconv.Itoa(int(d.Hours())) + " h ago"
	}
	return t.Local().Format("2006-01-02 15:04")
}
