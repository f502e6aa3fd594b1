// Package factory is what every parley command is built from, after gh's
// cmdutil.Factory: the process's environment, working directory, clock and
// streams (and whether each is a terminal), the flags every command shares,
// and the configuration, session database and engine, each built the first
// time a command asks for it, so a command that needs no store opens none.
// It is the one reader of the environment below main: the packages under
// it are handed its functions (see TestOnlyTheFactoryReadsTheEnvironment).
package factory

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/dbplace"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
)

// IOStreams are a command's standard streams and whether each is a terminal.
type IOStreams struct {
	In                    io.Reader
	Out, ErrOut           io.Writer
	InTTY, OutTTY, ErrTTY bool
}

// Factory carries one command line's surroundings and builds its parts.
type Factory struct {
	IO  IOStreams
	Env Env
	// Dir is the working directory: ./parley.yaml, ./.env and the console's
	// exports are found there ("": the process's own).
	Dir string
	Now func() time.Time
	// Flags are the flags every command shares, filled as the command line
	// is parsed; DemoPace and Modes are set when the factory is made.
	Flags *wiring.Flags
	// Saves learns whether every session of the run was saved.
	Saves *wiring.SaveStatus

	loaded *configload.Loaded
}

// New is the factory of a test or of main: its streams (terminals only when
// they are one), env, the demo agents' pace and the modes the program knows.
func New(io IOStreams, env Env, pace time.Duration, known config.ModeList) *Factory {
	return &Factory{IO: io, Env: env, Now: time.Now,
		Flags: &wiring.Flags{DemoPace: pace, Modes: known}, Saves: &wiring.SaveStatus{}}
}

// System is the factory of the real program: this process's streams,
// environment and working directory.
func System(pace time.Duration, known config.ModeList) *Factory {
	streams := IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: term.IsTerminal(os.Stdin.Fd()), OutTTY: term.IsTerminal(os.Stdout.Fd()), ErrTTY: term.IsTerminal(os.Stderr.Fd())}
	return New(streams, Process{}, pace, known)
}

// Getenv reads one variable of the factory's environment.
func (f *Factory) Getenv(key string) string { return f.Env.Getenv(key) }

// Host is what wiring takes from the factory.
func (f *Factory) Host() wiring.Host {
	return wiring.Host{Getenv: f.Env.Getenv, LookupEnv: f.Env.LookupEnv, Environ: f.Env.Environ, Now: f.Now,
		Dir: f.Dir, Stdin: f.IO.In, Stdout: f.IO.Out, Stderr: f.IO.ErrOut, Saves: f.Saves}
}

// LoadDotEnv reads ./.env into the environment, never over a variable
// already set; every command runs it first (PARLEY_DB may come from there).
func (f *Factory) LoadDotEnv() error {
	return configload.LoadDotEnv(f.Dir, f.Env.LookupEnv, f.Env.Setenv)
}

// Path is path as the command line meant it: relative to the working
// directory.
func (f *Factory) Path(path string) string { return configload.InDir(f.Dir, path) }

// Config loads the configuration the first time it is asked for (--config,
// ./parley.yaml, the user's; PARLEY_* over it; --mode, --strict-seats),
// printing its warnings once.
func (f *Factory) Config() (*configload.Loaded, error) {
	if f.loaded == nil {
		loaded, err := wiring.LoadConfiguration(f.Host(), f.Flags)
		if err != nil {
			return nil, err
		}
		f.loaded = loaded
	}
	return f.loaded, nil
}

// DBPath is the session database the flags, environment and
// configuration name.
func (f *Factory) DBPath() (string, error) {
	return wiring.DBPath(f.Host(), f.Flags)
}

// DBPlace is DBPath with what named it.
func (f *Factory) DBPlace() (dbplace.Place, error) {
	return wiring.DBPlace(f.Host(), f.Flags)
}

// Store opens the session database the flags, environment and
// configuration name; the caller closes it.
func (f *Factory) Store() (*store.Store, string, error) {
	return wiring.OpenDB(f.Host(), f.Flags)
}

// App builds the engine for mode ("": the configured default) over the
// configuration, opens the session database (unless Flags.NoPersist) and
// restores the session asked for; adjust changes the configuration first.
// The caller closes it.
func (f *Factory) App(mode string, adjust ...func(*config.Config) error) (*wiring.App, error) {
	loaded, err := f.Config()
	if err != nil {
		return nil, err
	}
	return wiring.New(f.Host(), f.Flags, loaded, mode, adjust...)
}

// Served builds what a server (serve, mcp) makes its sessions from; ctx
// bounds the MCP tool calls it runs.
func (f *Factory) Served(ctx context.Context) (*wiring.Served, error) {
	loaded, err := f.Config()
	if err != nil {
		return nil, err
	}
	return wiring.NewServed(ctx, f.Host(), f.Flags, loaded)
}

// Bind completes the shared flags once cmd's command line is parsed
// (which command runs, whether --tools and --max-cost were given, a
// relative --db seen from Dir) and reads ./.env: every command's first
// step, from the root's PersistentPreRunE.
func (f *Factory) Bind(cmd *cobra.Command) error {
	g := f.Flags
	if cmd.HasParent() {
		g.Door = cmd.Name()
	}
	g.ToolsSet = cmd.Flags().Changed("tools")
	g.MaxCostSet = cmd.Flags().Changed("max-cost")
	if fl := cmd.Flags().Lookup("checkpoint"); fl != nil {
		g.TakesCheckpoint, g.CheckpointSet = true, fl.Changed
	}
	if g.DB != "" && !store.IsPostgres(g.DB) {
		g.DB = f.Path(g.DB)
	}
	return f.LoadDotEnv()
}
