// Package toolkit builds the members' native tools for a run from the
// configuration and the run's selection (--tools): files over the
// engine's workspace, fetch_url, the vendor's web search and the tools of
// the MCP servers the user declared. It is the door's side of native tool
// calling: the engine only sees the boxes it returns.
package toolkit

import (
	"slices"
	"strings"
	"sync"

	"github.com/parleyhq/parley/cmd/parley/internal/fetchtool"
	"github.com/parleyhq/parley/cmd/parley/internal/mcptool"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/providers"
)

// Kit makes the boxes of one run.
type Kit struct {
	cfg       *config.Config
	workspace func() string
	fetch     *fetchtool.Tool
	// native: files alone is served natively too (--native-tools, or a
	// --tools selection); otherwise an agent whose only tool is files
	// keeps the XML protocol.
	native bool
	// served: a server's session, whose members get the tools allowed
	// (serve.tools) names, whatever their own lists say.
	served  bool
	allowed []string
	mcp     *mcptool.Pool
	// ReaderFiles (--native-tools) gives agent mode's reader the files
	// tools natively, whatever its own list (it reads the workspace with
	// the XML protocol otherwise).
	ReaderFiles bool
	// Warn is told once when an MCP server cannot be used (nil: quiet).
	Warn   func(string)
	warned sync.Map
}

// New makes a kit over cfg; workspace is the engine's folder at call time.
func New(cfg *config.Config, workspace func() string, native bool, lookupEnv func(string) (string, bool)) *Kit {
	return &Kit{cfg: cfg, workspace: workspace, fetch: fetchtool.New(cfg.Tools.Fetch.AllowPrivate), native: native,
		mcp: mcptool.NewPool(cfg.MCPServers, lookupEnv)}
}

// Close stops the MCP servers the run started.
func (k *Kit) Close() error { return k.mcp.Close() }

// Box is agent a's box (nil: no native tools).
func (k *Kit) Box(a *debate.Agent) *toolbox.Box {
	sel, err := toolbox.ParseSelection(a.Tools)
	if k.served {
		sel, err = k.allowed, nil
	}
	if k.ReaderFiles && !k.served && a.Name == k.cfg.Modes.Agent.Agent && !slices.Contains(sel, toolbox.Files) {
		// Agent mode's reader always reads the workspace; asked to call
		// natively (--native-tools) it needs the files tools in its box.
		sel = append(slices.Clone(sel), toolbox.Files)
	}
	if err != nil || len(sel) == 0 || !k.native && len(sel) == 1 && sel[0] == toolbox.Files {
		return nil
	}
	var tools []toolbox.Tool
	var server []providers.ServerTool
	for _, s := range sel {
		switch {
		case s == toolbox.Files:
			tools = append(tools, toolbox.FilesTools(k.workspace(), k.cfg.Modes.Agent.AllowHardLinks)...)
		case s == toolbox.Fetch:
			tools = append(tools, k.fetch)
		case s == toolbox.WebSearch:
			server = append(server, providers.ServerTool{Kind: providers.ServerToolWebSearch})
		case strings.HasPrefix(s, toolbox.MCPPrefix):
			name := strings.TrimPrefix(s, toolbox.MCPPrefix)
			more, err := k.mcp.Tools(name)
			if err != nil {
				if _, told := k.warned.LoadOrStore(name, true); !told && k.Warn != nil {
					k.Warn(err.Error() + " (its tools are not offered in this run)")
				}
				continue
			}
			tools = append(tools, more...)
		}
	}
	b := toolbox.New(tools, k.cfg.Tools.Rules())
	b.ServerTools = server
	return b
}

// Serve gives a server's session's members the tools serve.tools names,
// as --tools does for a run (none when it is empty: a server's clients
// are not its owner), served natively, fetch_url kept off private addresses unless
// serve.allow_private_fetch; warn hears of an MCP server that cannot be
// used, getenv is the environment its process inherits from (nil: none).
// The returned function stops the MCP servers the session started.
func Serve(eng *debate.Engine, warn func(string), getenv func(string) string) func() {
	cfg := eng.Config
	allowed, _ := toolbox.ParseSelection(cfg.Serve.Tools) // checked with the configuration
	var lookup func(string) (string, bool)
	if getenv != nil {
		lookup = func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	}
	k := New(cfg, eng.Workspace, true, lookup)
	k.fetch = fetchtool.New(cfg.Serve.AllowPrivateFetch)
	k.served, k.allowed, k.Warn = true, allowed, warn
	eng.SetToolBoxes(k.Box)
	return func() { _ = k.Close() }
}

// Select is --tools: "none" or a comma-separated list, made every agent's
// selection for the run.
func Select(cfg *config.Config, list string) error {
	sel, err := toolbox.ParseSelection(strings.Split(list, ","))
	if err != nil {
		return err
	}
	for i := range cfg.Agents {
		cfg.Agents[i].Tools = config.ToolList(sel)
	}
	return nil
}
