package serve

import (
	"context"
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/spend"
)

// meter makes m the engine's meter, counting under the spend windows of
// user and of the server (Options.Limits), so every door's sessions —
// the API's, the page's, the OpenAI door's — share them.
func (s *Server) meter(ctx context.Context, eng *debate.Engine, m *spend.Meter, user string) error {
	if s.opts.Limits != nil {
		windows, err := s.opts.Limits.For(ctx, user)
		if err != nil {
			return err
		}
		m.Under(windows)
	}
	eng.SetMeter(m)
	return nil
}

// spendRoom refuses new work at once when user's or the server's spend
// window has no room left (the engine refuses a call that would not fit
// before it is made).
func (s *Server) spendRoom(ctx context.Context, user string) error {
	if s.opts.Limits == nil {
		return nil
	}
	windows, err := s.opts.Limits.For(ctx, user)
	if err != nil {
		return err
	}
	if ce := windows.WindowFull(); ce != nil {
		return s.spendRefusal(ce)
	}
	return nil
}

// spendRefusal is a spend window's refusal as the API says it: 429, the
// limit's name as the code, the sentence (which limit, whose, what was
// spent, when it resets), the figures, and Retry-After until the reset;
// for a window the database could not give (spend.CapError.Unreadable),
// the sentence saying so and Retry-After unreadableRetry. Nil when err is
// no such refusal.
func (s *Server) spendRefusal(err error) *apiError {
	var ce *spend.CapError
	if !errors.As(err, &ce) || ce.Reason != spend.CapWindow {
		return nil
	}
	ae := errorf(http.StatusTooManyRequests, ce.Limit, "%s", ce.Error())
	if ce.Unreadable { // the database did not answer: no figures, ask again soon
		ae.RetryAfter = unreadableRetry
		return ae
	}
	spent, limit := math.Round(ce.SpentUSD*1e10)/1e10, ce.CapUSD // float sums: 0.0135, not 0.013499999999999998
	ae.SpentUSD, ae.LimitUSD = &spent, &limit
	ae.ResetsAt = ce.ResetsAt.UTC().Format(time.RFC3339)
	now := time.Now()
	if s.opts.Limits != nil {
		now = s.opts.Limits.Now() // the windows' clock
	}
	ae.RetryAfter = max(ce.ResetsAt.Sub(now), time.Second)
	return ae
}

// unreadableRetry is how soon a client refused because the spend windows
// could not be read is asked to try again.
const unreadableRetry = 5 * time.Second
