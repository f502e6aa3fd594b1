// Package wiring is what every parley command does before and after its
// own work: load the configuration, bind the agents, build the engine, open
// the session database and restore a session, render the events headless,
// and close it all down. Commands stay thin: flags in, wiring, a consumer.
package wiring

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/catalog"
	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/toolkit"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
	"github.com/spf13/cobra"
)

// Flags are the flags every command shares.
type Flags struct {
	Config    string // --config
	DB        string // --db
	Demo      bool   // --demo
	JSON      bool   // --json
	JSONL     bool   // --jsonl
	Mode      string // --mode
	Resume    string // --resume
	Continue  bool   // --continue
	Session   string // --session
	Wait      bool   // --wait: queue behind another process answering in the session
	NoPersist bool   // set by commands whose runs are not sessions (bench)
	// MaxCost is --max-cost (USD): the run's cap, over budget_usd.
	MaxCost float64
	// Tools is --tools (a list, or none): every agent's tools for the run;
	// NativeTools (--native-tools) serves files natively too.
	Tools       string
	NativeTools bool
	// StrictSeats (--strict-seats) is `seating: strict`: an agent without
	// its key is never stood in for.
	StrictSeats bool
	// Checkpoint is --checkpoint: where the run waits for its host
	// (checkpoint.go). TakesCheckpoint: the command has the flag;
	// CheckpointSet: it was given.
	Checkpoint                     string
	TakesCheckpoint, CheckpointSet bool
	// ToolsSet and MaxCostSet say whether --tools and --max-cost were
	// given (a zero value of either is a choice too).
	ToolsSet, MaxCostSet bool
	// Door is the command being run ("ask", "magi", …), "" for the
	// console: where a shared session's turns come from.
	Door string
	// DemoPace is no flag: the demo agents' delay between words, given to
	// the command tree when it is built (demo.Pace for users, faster in
	// tests that run whole commands in-process).
	DemoPace time.Duration
	// Modes is no flag either: the modes this program knows (modes.All;
	// a test may add one), handed to the configuration.
	Modes config.ModeList
}

// Host is what a run takes from the process it runs in, handed down by
// the command factory (package factory), the one reader of the
// environment: its variables, clock, working directory and streams.
type Host struct {
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)
	Environ   func() []string // os.Environ's form: the PARLEY_* overrides
	Now       func() time.Time
	// Dir is the working directory: ./parley.yaml and the console's
	// exports ("": the process's own).
	Dir    string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Saves learns of a failed save (nil: a fresh one nobody reads).
	Saves *SaveStatus
}

// App is one run of Parley: configuration, engine and the session's store.
type App struct {
	Flags  *Flags
	Cfg    *config.Config
	Engine *debate.Engine
	// Demo is true when every agent runs offline, by --demo or because no
	// key is set at all (NoKeys).
	Demo    bool
	NoKeys  bool
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	closers []func() error
	saves   *SaveStatus
	Store   *store.Store // the session database; nil with NoPersist
	Resumed bool         // a saved session was restored (--resume, --continue, --session)
	DBFile  string       // its path
	dir     string       // the working directory ("": the process's)
	// Door names where this run's turns come from in a shared session:
	// "console", or the command ("ask", "magi", …).
	Door string
}

// New builds the engine for mode ("" : the configured default) over the
// loaded configuration. It opens the store and restores a session when
// asked. adjust, when given, changes the configuration before agents are
// built (command flags such as magi's -m or talk's --a). The factory calls
// it (factory.App) when a command first asks for its engine.
func New(h Host, g *Flags, loaded *configload.Loaded, mode string, adjust ...func(*config.Config) error) (*App, error) {
	cfg := loaded.Config
	if len(adjust) == 0 {
		adjust = append(adjust, func(c *config.Config) error { return c.ApplyMagi("", "--preset", "") }) // modes.magi.preset applies everywhere
	}
	for _, f := range adjust {
		if err := f(cfg); err != nil {
			return nil, cli.Usage(err)
		}
	}
	if err := ApplyMaxCost(g, cfg); err != nil {
		return nil, err
	}
	toolsSet := g.ToolsSet
	if toolsSet {
		if err := toolkit.Select(cfg, g.Tools); err != nil {
			return nil, cli.Usage(fmt.Errorf("--tools: %w", err))
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, cli.Usage(err)
	}
	a := &App{Flags: g, Cfg: cfg, Stdin: h.Stdin, Stdout: h.Stdout, Stderr: h.Stderr,
		saves: h.Saves, Door: cmp.Or(g.Door, "console"), dir: h.Dir}
	if a.saves == nil {
		a.saves = &SaveStatus{}
	}
	a.NoKeys = !cli.AnyKey(cfg, h.Getenv)
	a.Demo = g.Demo || a.NoKeys
	Seat(cfg, a.Demo, h.Getenv)
	if !a.Demo {
		// Shutdown dates and sampling parameters the model does not take,
		// once at start, each naming its config key.
		for _, w := range cfg.ModelWarnings(h.Now()) {
			fmt.Fprintln(a.Stderr, "warning: "+w)
		}
	}
	agents, err := cli.BuildAgents(cfg, a.Demo, g.DemoPace, h.Getenv)
	if err != nil {
		return nil, cli.Usage(err)
	}
	if a.Demo {
		cfg.Offline = true // demo answers cost nothing
	}
	if mode == "" {
		mode = g.Mode
	}
	eng, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		return nil, cli.Usage(err)
	}
	a.Engine = eng
	kit := toolkit.New(cfg, eng.Workspace, toolsSet || g.NativeTools, h.LookupEnv)
	kit.ReaderFiles = g.NativeTools // agent mode's reader calls natively
	kit.Warn = func(s string) { fmt.Fprintln(a.Stderr, "parley: warning: "+sanitize.Text(s)) }
	a.closers = append(a.closers, kit.Close)
	eng.SetToolBoxes(kit.Box)
	if err := attachHost(g, a, eng); err != nil {
		a.Close()
		return nil, err
	}
	if err := a.openStore(h); err != nil {
		a.Close()
		return nil, err
	}
	if a.Door != "console" { // headless: the console shows it on its first screen
		if tail := eng.History().Tail(); a.Resumed && len(tail) > 0 {
			info := eng.Info()
			name := info.Title
			if name == "" {
				name = "session " + info.ID
			}
			fmt.Fprintf(a.Stderr, "parley: resumed %q (%d turns)\n", name, tail[len(tail)-1].Turn)
		}
		// A mode that words its own seating (mention: whom @all skips) says
		// it when the question calls for it, not before it is known.
		if _, own := eng.Current().(debate.SeatingLiner); !own {
			if line := eng.SeatingLine(eng.Current().Name()); line != "" {
				fmt.Fprintln(a.Stderr, "parley: "+line)
			}
		}
	}
	return a, nil
}

// ApplyMaxCost makes --max-cost, when given, the run's cap (over the
// configuration's budget_usd; 0 lifts it).
func ApplyMaxCost(g *Flags, cfg *config.Config) error {
	if !g.MaxCostSet {
		return nil
	}
	if g.MaxCost < 0 {
		return cli.Usage(errors.New("--max-cost must not be negative (0: no cap)"))
	}
	v, err := figures.Money("--max-cost", g.MaxCost) // NaN would pass every cap check
	if err != nil {
		return cli.Usage(err)
	}
	cfg.BudgetUSD = v
	return nil
}

// AddCostFlag gives a command that calls models --max-cost.
func AddCostFlag(cmd *cobra.Command, g *Flags) {
	cmd.Flags().Float64Var(&g.MaxCost, "max-cost", 0,
		"cap in USD: no call is started whose worst case could take the run's cost past it (default: budget_usd; 0: no cap)")
	// Every command that calls a model takes --max-cost, and so the tools.
	cmd.Flags().StringVar(&g.Tools, "tools", "", "the agents' tools for this run: a list of files, fetch, web_search, mcp:NAME, or none (default: each agent's tools:)")
	cmd.Flags().BoolVar(&g.NativeTools, "native-tools", false, "serve files through the model's native tool calls instead of the XML protocol")
}

// Seat seats the agents by the keys that are set (SPEC §4, "seats follow
// the keys"): an agent whose provider has no key stands in on the first
// keyed provider's default model, or with `seating: strict` stays
// unseated. Every entry point calls it once before building agents: the
// console and headless commands (through New), serve and the MCP server.
// Nothing is seated in the demo (--demo, or no key at all): nil.
func Seat(cfg *config.Config, demo bool, getenv func(string) string) *config.Seating {
	if demo {
		cfg.Seats = nil
		return nil
	}
	return cfg.Seat(getenv)
}

// Close lets the subscribers (the store) take the last events, then
// releases the store.
func (a *App) Close() {
	if a.Engine != nil && len(a.closers) > 0 {
		headless.Drain(a.Engine)
	}
	for i := len(a.closers) - 1; i >= 0; i-- {
		_ = a.closers[i]()
	}
	a.closers = nil
}

// RequireKeys refuses headless work with no key unless --demo was given.
func (a *App) RequireKeys() error {
	if a.NoKeys && !a.Flags.Demo {
		return cli.Usage(errors.New(cli.KeyHelp))
	}
	return nil
}

// Format is the output format the global flags ask for.
func (a *App) Format() headless.Format {
	switch {
	case a.Flags.JSONL:
		return headless.JSONL
	case a.Flags.JSON:
		return headless.JSON
	}
	return headless.Text
}

// Printer returns a headless printer of the given style on the app's streams.
func (a *App) Printer(style headless.Style, adjust ...func(*headless.Options)) *headless.Printer {
	o := headless.Options{Out: a.Stdout, Err: a.Stderr, Format: a.Format(), Style: style, ToolAgents: map[string]bool{}, Modes: a.Cfg.ModeList}
	for _, ag := range a.Engine.Agents() {
		o.ToolAgents[ag.Name] = ag.Tools.Files() && a.Engine.NativeTools(ag) == nil // XML steps
	}
	for _, f := range adjust {
		f(&o)
	}
	return headless.New(o)
}

// Run is the headless commands' one run loop with Ctrl+C wired to the
// engine's interrupt policy.
func (a *App) Run(ctx context.Context, p *headless.Printer, inputs ...string) error {
	sigs, stop := Interrupts()
	defer stop()
	return headless.Run(ctx, a.Engine, p, inputs, sigs)
}

// Interrupts delivers Ctrl+C, SIGTERM and SIGHUP until stop is called
// (systemd, docker stop, CI and a closed ssh end a run the Ctrl+C way).
func Interrupts() (<-chan os.Signal, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, StopSignals...)
	return sigs, func() { signal.Stop(sigs) }
}

// StopSignals are the signals every command ends on the Ctrl+C way: what
// arrived is kept, printed and saved as cancelled, the store is closed.
var StopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// EnterMode makes name the session's mode (a resumed session may be in another).
func (a *App) EnterMode(name string) error {
	if a.Engine.Current().Name() == name {
		return nil
	}
	return a.Engine.SetMode(name)
}

// refreshCatalog is catalog.auto_update's daily fetch: bounded, silent
// (a failure keeps the catalogue there is), used from the next start on.
func refreshCatalog(h Host) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = catalog.Update(ctx, catalog.URL("", h.Getenv), h.Now(), h.Getenv)
}

// LoadConfiguration finds and loads the configuration, prints its warnings
// on stderr and applies the global --mode (whose source is then the flag).
func LoadConfiguration(h Host, g *Flags) (*configload.Loaded, error) {
	path, err := configload.Path(h.Dir, g.Config, h.Getenv) // .env was read before any command ran
	if err != nil {
		return nil, cli.Usage(err)
	}
	loaded, err := configload.Load(g.Modes, path, h.Environ())
	if err != nil {
		return nil, cli.Usage(err)
	}
	if w := catalog.Apply(loaded.Config, h.Getenv); w != "" {
		loaded.Warnings = append(loaded.Warnings, w)
	}
	if catalog.Due(loaded.Config, h.Now(), h.Getenv) {
		go refreshCatalog(h) // in the background: start-up never waits for it
	}
	for _, w := range loaded.Warnings {
		fmt.Fprintln(h.Stderr, "parley: warning:", w)
	}
	if g.StrictSeats {
		loaded.Config.Seating = config.SeatingStrict
		loaded.SetByFlag("seating", "--strict-seats")
	}
	if g.Mode != "" {
		if _, ok := g.Modes.Spec(g.Mode); !ok {
			return nil, cli.Usage(fmt.Errorf("--mode: %s", g.Modes.Unknown(g.Mode)))
		}
		loaded.Config.DefaultMode = g.Mode
		loaded.SetByFlag("default_mode", "--mode")
	}
	return loaded, nil
}
