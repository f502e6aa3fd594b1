package wiring

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleyhq/parley"
	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
)

// Served is what a server (parley serve, parley mcp) builds every session
// from: the configuration, the agents (real or demo), the session database
// and the MCP server.
type Served struct {
	Cfg *config.Config
	// Demo is true when every agent runs offline, by --demo or because no
	// key is set at all (NoKeys).
	Demo, NoKeys bool
	// Agents binds a session's configuration to providers opened once and
	// shared by every session (or to the demo agents).
	Agents func(*config.Config) ([]*debate.Agent, error)
	Store  *store.Store
	MCP    *parleymcp.Server
}

// Close lets the MCP tool calls still running save their sessions, then
// releases the session database.
func (s *Served) Close() error {
	s.MCP.Close()
	return s.Store.Close()
}

// NewServed loads the configuration, chooses the agents, opens the session
// database and builds the MCP server. --max-cost (else budget_usd) caps
// every session, and each MCP tool call (DefaultMaxCost when neither is set).
func NewServed(ctx context.Context, h Host, g *Flags, loaded *configload.Loaded) (*Served, error) {
	if err := ApplyMaxCost(g, loaded.Config); err != nil {
		return nil, err
	}
	if g.ToolsSet { // a server's sessions' tools: serve.tools
		sel, err := toolbox.ParseSelection(strings.Split(g.Tools, ","))
		if err != nil {
			return nil, cli.Usage(fmt.Errorf("--tools: %w", err))
		}
		loaded.Config.Serve.Tools = sel
		if err := loaded.Config.Validate(); err != nil {
			return nil, cli.Usage(err)
		}
	}
	s := &Served{Cfg: loaded.Config, NoKeys: !cli.AnyKey(loaded.Config, h.Getenv)}
	s.Demo = g.Demo || s.NoKeys
	// Every session the server opens seats its agents this way.
	if line := Seat(s.Cfg, s.Demo, h.Getenv).Summary(); line != "" {
		fmt.Fprintln(h.Stderr, "parley: "+line)
	}
	if s.Demo {
		s.Cfg.Offline = true // demo answers cost nothing
		s.Agents = func(c *config.Config) ([]*debate.Agent, error) { return cli.BuildAgents(c, true, g.DemoPace, nil) }
	} else {
		for _, w := range s.Cfg.ModelWarnings(h.Now()) {
			fmt.Fprintln(h.Stderr, "warning: "+w)
		}
		s.Agents = serve.SharedProviders(func(name string, spec providers.Spec) (providers.Provider, error) {
			return open.Open(name, spec, h.Getenv)
		})
	}
	var err error
	if s.Store, _, err = OpenDB(h, g); err != nil {
		return nil, err
	}
	s.MCP, err = parleymcp.New(ctx, parleymcp.Options{Config: s.Cfg, Agents: s.Agents, Store: s.Store,
		MaxCost: s.Cfg.BudgetUSD, Version: parley.Version, Log: h.Stderr, Getenv: h.Getenv})
	if err != nil {
		_ = s.Store.Close()
		return nil, err
	}
	return s, nil
}
