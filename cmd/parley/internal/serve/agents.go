package serve

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
)

type agentRequest struct {
	Name     string `json:"name"`
	Display  string `json:"display"`
	Persona  string `json:"persona"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Color    string `json:"color"`
}

var (
	agentName = lazyregexp.New(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	colour    = lazyregexp.New(`^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-z]{1,20}|[0-9]{1,3})$`)
)

// createAgent stores a custom agent; it is usable by name in sessions
// created after it (and in saved sessions loaded after it).
func (s *Server) createAgent(w http.ResponseWriter, r *http.Request) error {
	var req agentRequest
	if err := decode(w, r, s.opts.MaxBody, &req); err != nil {
		return err
	}
	if err := s.limit(w, r, userOf(r)); err != nil {
		return err
	}
	switch {
	case !agentName.MatchString(req.Name) || req.Name == "all":
		return errorf(http.StatusBadRequest, "bad_field", "name: %q must be 1-32 lower-case letters, digits, - or _ (not \"all\")", req.Name)
	case req.Provider == "":
		return errorf(http.StatusBadRequest, "bad_field", "provider: required (one of the configured providers)")
	case req.Color != "" && !colour.MatchString(req.Color):
		return errorf(http.StatusBadRequest, "bad_field", "color: %q is not a colour name, #rgb, #rrggbb or an ANSI number", req.Color)
	case len(req.Persona) > 16<<10 || len(req.Display) > 64 || len(req.Model) > 128:
		return errorf(http.StatusBadRequest, "bad_field", "persona (16 KiB), display (64) or model (128) is too long")
	}
	if _, ok := s.opts.Config.Agent(req.Name); ok {
		return errorf(http.StatusConflict, "exists", "agent %q is configured in the configuration file: pick another name", req.Name)
	}
	if _, ok := s.opts.Config.Providers[req.Provider]; !ok {
		names := make([]string, 0, len(s.opts.Config.Providers))
		for n := range s.opts.Config.Providers {
			names = append(names, n)
		}
		return errorf(http.StatusBadRequest, "bad_field", "provider: unknown provider %q (known: %s)", req.Provider, strings.Join(sorted(names), ", "))
	}
	cfg := cloneConfig(s.opts.Config)
	cfg.Agents = append(cfg.Agents, config.AgentSpec{Name: req.Name, Display: req.Display, Persona: req.Persona, Provider: req.Provider, Model: req.Model, Color: req.Color})
	if err := cfg.Validate(); err != nil {
		return errorf(http.StatusBadRequest, "bad_field", "%s", err.Error())
	}
	a := store.CustomAgent{Name: req.Name, Display: req.Display, Persona: req.Persona, Provider: req.Provider, Model: req.Model, Color: req.Color}
	if err := s.opts.Store.SaveAgent(r.Context(), a); err != nil {
		return err
	}
	agents, err := s.opts.Store.Agents(r.Context())
	if err != nil {
		return err
	}
	for _, got := range agents {
		if got.Name == a.Name {
			a = got
		}
	}
	writeJSON(w, http.StatusCreated, map[string]any{"agent": a})
	return nil
}

// configuredAgent is an agent of the configuration file, as listed.
type configuredAgent struct {
	Name     string `json:"name"`
	Display  string `json:"display"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Color    string `json:"color,omitempty"`
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) error {
	custom, err := s.opts.Store.Agents(r.Context())
	if err != nil {
		return err
	}
	configured := []configuredAgent{}
	for _, a := range s.opts.Config.Agents {
		configured = append(configured, configuredAgent{Name: a.Name, Display: a.Display, Provider: a.Provider, Model: a.Model, Color: a.Color})
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": custom, "configured": configured})
	return nil
}

func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	err := s.opts.Store.DeleteAgent(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, "not_found", "no custom agent %q", name)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": name})
	return nil
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

// SharedProviders binds a session's agents to providers opened once per
// configured provider and shared by every session, so their HTTP
// connections are reused from one session to the next. open is called
// with a provider's name and spec the first time a session needs it.
func SharedProviders(open func(name string, spec providers.Spec) (providers.Provider, error)) func(*config.Config) ([]*debate.Agent, error) {
	var mu sync.Mutex
	opened := map[string]providers.Provider{}
	return func(cfg *config.Config) ([]*debate.Agent, error) {
		mu.Lock()
		defer mu.Unlock()
		agents := make([]*debate.Agent, 0, len(cfg.Agents))
		for _, spec := range cfg.Agents {
			p := opened[spec.Provider]
			if p == nil {
				var err error
				if p, err = open(spec.Provider, cfg.Providers[spec.Provider]); err != nil {
					return nil, &config.ConfigError{File: cfg.Source, Key: "providers." + spec.Provider, Problem: err.Error()}
				}
				opened[spec.Provider] = p
			}
			agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
		}
		return agents, nil
	}
}
