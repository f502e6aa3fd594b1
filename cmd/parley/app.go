package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
)

// globalFlags are the flags every command shares.
type globalFlags struct {
	config    string
	db        string
	demo      bool
	json      bool
	jsonl     bool
	mode      string
	resume    string
	cont      bool
	session   string
	noPersist bool
}

// app is one run of Parley: configuration, engine and the session's store.
type app struct {
	flags  *globalFlags
	cfg    *debate.Config
	engine *debate.Engine
	// demo is true when every agent runs offline, by --demo or because no
	// key is set at all (noKeys).
	demo    bool
	noKeys  bool
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	closers []func() error
	store   *store.Store // the session database; nil with noPersist
	dbFile  string       // its path
}

// newApp loads the configuration and builds the engine for mode ("" : the
// configured default). It opens the store and restores a session when asked.
// adjust, when given, changes the configuration before agents are built
// (command flags such as magi's -m or talk's --a).
func newApp(cmd *cobra.Command, g *globalFlags, mode string, adjust ...func(*debate.Config) error) (*app, error) {
	loaded, err := loadConfiguration(cmd, g)
	if err != nil {
		return nil, err
	}
	cfg := loaded.Config
	if len(adjust) == 0 {
		adjust = append(adjust, magiAdjust("", "")) // modes.magi.preset applies everywhere
	}
	for _, f := range adjust {
		if err := f(cfg); err != nil {
			return nil, usageErr(err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, usageErr(err)
	}
	a := &app{flags: g, cfg: cfg, stdin: cmd.InOrStdin(), stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr()}
	a.noKeys = !cli.AnyKey(cfg)
	a.demo = g.demo || a.noKeys
	if !a.demo {
		// Shutdown dates and sampling parameters the model does not take,
		// once at start, each naming its config key.
		for _, w := range cfg.ModelWarnings(time.Now()) {
			fmt.Fprintln(a.stderr, "warning: "+w)
		}
	}
	agents, err := cli.BuildAgents(cfg, a.demo)
	if err != nil {
		return nil, usageErr(err)
	}
	if a.demo {
		cfg.Offline = true // demo answers cost nothing
	}
	if mode == "" {
		mode = g.mode
	}
	eng, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		return nil, usageErr(err)
	}
	a.engine = eng
	if err := a.openStore(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Close lets the subscribers (the store) take the last events, then
// releases the store.
func (a *app) Close() {
	if a.engine != nil && len(a.closers) > 0 {
		headless.Drain(a.engine)
	}
	for i := len(a.closers) - 1; i >= 0; i-- {
		_ = a.closers[i]()
	}
	a.closers = nil
}

// requireKeys refuses headless work with no key unless --demo was given.
func (a *app) requireKeys() error {
	if a.noKeys && !a.flags.demo {
		return usageErr(errors.New(cli.KeyHelp))
	}
	return nil
}

// format is the output format the global flags ask for.
func (a *app) format() headless.Format {
	switch {
	case a.flags.jsonl:
		return headless.JSONL
	case a.flags.json:
		return headless.JSON
	}
	return headless.Text
}

// printer returns a headless printer of the given style on the app's streams.
func (a *app) printer(style headless.Style, adjust ...func(*headless.Options)) *headless.Printer {
	o := headless.Options{Out: a.stdout, Err: a.stderr, Format: a.format(), Style: style, ToolAgents: map[string]bool{}}
	for _, ag := range a.engine.Agents() {
		o.ToolAgents[ag.Name] = ag.Tools
	}
	for _, f := range adjust {
		f(&o)
	}
	return headless.New(o)
}

// run is the headless commands' one run loop with Ctrl+C wired to the
// engine's interrupt policy.
func (a *app) run(ctx context.Context, p *headless.Printer, inputs ...string) error {
	sigs, stop := interrupts()
	defer stop()
	return headless.Run(ctx, a.engine, p, inputs, sigs)
}

// interrupts delivers Ctrl+C until stop is called.
func interrupts() (<-chan os.Signal, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	return sigs, func() { signal.Stop(sigs) }
}

// enterMode makes name the session's mode (a resumed session may be in another).
func (a *app) enterMode(name string) error {
	if a.engine.Current().Name() == name {
		return nil
	}
	return a.engine.SetMode(name)
}

// addSessionFlag gives a headless command --session: continue a saved
// session (a unique ID prefix is enough) in that command's mode.
func addSessionFlag(cmd *cobra.Command, g *globalFlags) {
	cmd.Flags().StringVar(&g.session, "session", "", "continue the saved session with this ID (a unique prefix is enough)")
}
