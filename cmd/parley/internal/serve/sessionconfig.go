package serve

import (
	"context"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
)

// config builds a session's configuration: the server's, plus the custom
// agents, with the mode's agents replaced when the session names them.
func (s *Server) config(ctx context.Context, mode string, agents []string, preset, model string) (*config.Config, error) {
	cfg, err := s.draftConfig(ctx, mode, agents, preset, model)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_field", "%s", err.Error())
	}
	return cfg, nil
}

// draftConfig is config not yet validated, for a caller that changes it
// further and validates it once after (an OpenAI request's effort and
// answer limit).
func (s *Server) draftConfig(ctx context.Context, mode string, agents []string, preset, model string) (*config.Config, error) {
	cfg := cloneConfig(s.opts.Config)
	custom, err := s.opts.Store.Agents(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range custom {
		if _, ok := cfg.Agent(a.Name); !ok {
			cfg.Agents = append(cfg.Agents, config.AgentSpec{Name: a.Name, Display: a.Display, Persona: a.Persona,
				Provider: a.Provider, Model: a.Model, Color: a.Color})
		}
	}
	if len(agents) > 0 {
		if err := useAgents(cfg, mode, agents); err != nil {
			return nil, err
		}
	}
	if err := cfg.ApplyMagi(preset, "preset", model); err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_field", "%s", err.Error())
	}
	return cfg, nil
}

// agentNames are the agents a session's configuration (config) lists, in
// its order — the server's, then the custom ones it lacks — without
// building one: the OpenAI door asks for them on every request, and
// cloning and validating a whole configuration for a list of names was a
// tenth of a door request's CPU (issue 50). A custom agent whose settings
// do not validate is named here and refused when a session seats it.
func (s *Server) agentNames(ctx context.Context) ([]string, error) {
	names := s.opts.Config.AgentNames()
	custom, err := s.opts.Store.Agents(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range custom {
		if !slices.Contains(names, a.Name) {
			names = append(names, a.Name)
		}
	}
	return names, nil
}

// useAgents makes names the agents of mode, as many as its seats take.
func useAgents(cfg *config.Config, mode string, names []string) error {
	for _, n := range names {
		if _, ok := cfg.Agent(n); !ok {
			return errorf(http.StatusBadRequest, "unknown_agent", "unknown agent %q (known: %s)", n, strings.Join(cfg.AgentNames(), ", "))
		}
	}
	spec, ok := cfg.ModeList.Spec(mode)
	if !ok {
		return errorf(http.StatusBadRequest, "bad_field", "mode: %s", cfg.ModeList.Unknown(mode))
	}
	lo, hi := spec.Info().Seats.Min, spec.Info().Seats.Max
	switch {
	case len(names) >= lo && (hi == 0 || len(names) <= hi):
	case lo == hi:
		return errorf(http.StatusBadRequest, "bad_field", "agents: %s mode takes %d agents, got %d", mode, lo, len(names))
	default:
		return errorf(http.StatusBadRequest, "bad_field", "agents: %s mode takes %d to %d agents, got %d", mode, lo, hi, len(names))
	}
	spec.Seat(cfg, names)
	return nil
}

// cloneConfig copies what a session may change.
func cloneConfig(c *config.Config) *config.Config {
	out := *c
	out.Agents = slices.Clone(c.Agents)
	out.Modes.Mention.Agents = slices.Clone(c.Modes.Mention.Agents)
	out.Modes.Alternate.Agents = slices.Clone(c.Modes.Alternate.Agents)
	out.Modes.Magi.Agents = slices.Clone(c.Modes.Magi.Agents)
	out.Modes.Council.Members = slices.Clone(c.Modes.Council.Members)
	return &out
}

// sessionCap is the cap of a new session: the request's max_cost, at most
// the server's ceiling (serve --max-cost, else budget_usd); without one, the
// ceiling.
func (s *Server) sessionCap(asked *float64) (float64, error) {
	ceiling := s.opts.MaxCost
	if asked == nil {
		return ceiling, nil
	}
	v := *asked
	switch {
	case v < 0 || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, errorf(http.StatusBadRequest, "bad_field", "max_cost: a cap in USD, 0 or more")
	case v > figures.MaxMoneyUSD:
		_, err := figures.Money("max_cost", v)
		return 0, errorf(http.StatusBadRequest, "bad_field", "%v", err)
	case ceiling > 0 && (v == 0 || v > ceiling):
		return 0, errorf(http.StatusBadRequest, "bad_field", "max_cost: %s is above this server's ceiling of %s per session",
			capOrNone(v), spend.CapString(ceiling))
	}
	return v, nil
}

func capOrNone(v float64) string {
	if v == 0 {
		return "0 (no cap)"
	}
	return spend.CapString(v)
}

// storedCap is a loaded session's cap: the one it was created with, never
// above the server's current ceiling.
func (s *Server) storedCap(info debate.SessionInfo) float64 {
	ceiling := s.opts.MaxCost
	v, err := figures.ParseMoney("", info.State[stateMaxCost])
	if err != nil || v == 0 {
		return ceiling
	}
	if ceiling > 0 {
		return min(v, ceiling)
	}
	return v
}

// spentOn is what a session's turns cost.
func spentOn(entries []transcript.Entry) float64 {
	var usd float64
	for _, en := range entries {
		usd += en.Cost
	}
	return usd
}
