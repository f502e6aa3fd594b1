package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/pager"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/store"
)

// NewCmdSessions is parley sessions, the group of the saved sessions'
// commands, each doing its own run.
func NewCmdSessions(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "sessions",
		Aliases: []string{"session"},
		Short:   "List, show, rename, export, import, fork, unlock and delete saved sessions",
		Long: `Every exchange is saved as it happens in the session database
(--db, $PARLEY_DB, store.url, or $XDG_DATA_HOME/parley/parley.db). An ID prefix is
enough wherever an ID is asked for. Resume a session with
parley --resume ID, parley --continue (the latest) or
parley ask|repl|alternate|talk --session ID.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	sub := []*cobra.Command{NewCmdSessionsList(f, nil), NewCmdSessionsShow(f, nil), NewCmdSessionsExport(f, nil), NewCmdSessionsRm(f, nil),
		NewCmdSessionsRename(f, nil), NewCmdSessionsFork(f, nil), NewCmdSessionsImport(f, nil), NewCmdSessionsUnlock(f, nil), NewCmdSessionsCopy(f, nil)}
	for _, c := range sub {
		wrapArgs(c)
		cmd.AddCommand(c)
	}
	return cmd
}

// SessionsOptions are the options of a sessions command that works on
// saved sessions: its arguments and flags (the shared ones are in F.Flags).
type SessionsOptions struct {
	F    *factory.Factory
	Ctx  context.Context
	Args []string // the sessions' IDs or prefixes, then a title (rename)
	Wide bool     // list --wide
	// Format and Output are export's --format (FormatSet: given) and -o.
	Format, Output string
	FormatSet      bool
	At             string // fork --at
}

// newSessionsCmd is a sessions command running run, or runF when a test
// replaced it, with the options the command line filled.
func newSessionsCmd(f *factory.Factory, c *cobra.Command, runF, run func(*SessionsOptions) error) (*cobra.Command, *SessionsOptions) {
	opts := &SessionsOptions{F: f}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		opts.Ctx, opts.Args = cmd.Context(), args
		if fl := cmd.Flags().Lookup("format"); fl != nil {
			opts.FormatSet = fl.Changed
		}
		return runCmd(runF, run, opts)
	}
	return c, opts
}

// withStore opens the database for a sessions command that writes. A
// database that does not exist yet is not created: there is nothing in it.
func withStore(f *factory.Factory, do func(*store.Store) error) error {
	return openStoreFor(f, store.Open, do)
}

// readStore opens the database read-only for a sessions command that only
// reads (list, show, export): it works on read-only media and never
// writes, not even a pragma.
func readStore(f *factory.Factory, do func(*store.Store) error) error {
	return openStoreFor(f, store.OpenReadOnly, do)
}

func openStoreFor(f *factory.Factory, open func(string) (*store.Store, error), do func(*store.Store) error) error {
	path, err := f.DBPath()
	if err != nil {
		return err
	}
	if _, err := os.Stat(store.SQLitePath(path)); !store.IsPostgres(path) && errors.Is(err, os.ErrNotExist) {
		return do(nil)
	}
	st, err := open(path)
	if err != nil {
		return fmt.Errorf("session database: %w", err)
	}
	defer st.Close()
	return do(st)
}

// withSession opens the database and resolves the session ID or prefix
// ref for a sessions command that works on one session; readOnly for the
// commands that only read it.
func withSession(f *factory.Factory, ref string, readOnly bool, do func(st *store.Store, id string) error) error {
	with := withStore
	if readOnly {
		with = readStore
	}
	return with(f, func(st *store.Store) error {
		id, err := resolveArg(context.Background(), st, ref)
		if err != nil {
			return err
		}
		return do(st, id)
	})
}

// resolveArg resolves an ID or prefix given on the command line.
func resolveArg(ctx context.Context, st *store.Store, ref string) (string, error) {
	if st == nil {
		return "", cli.Usage(fmt.Errorf("no session matches %q: nothing has been saved yet", ref))
	}
	id, err := st.Resolve(ctx, ref)
	return id, wiring.SessionRefErr("session", err)
}

// NewCmdSessionsList is parley sessions list; runF, when given, replaces
// its run (sessionsListRun).
func NewCmdSessionsList(f *factory.Factory, runF func(*SessionsOptions) error) *cobra.Command {
	cmd, opts := newSessionsCmd(f, &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "Saved sessions, the most recently active first",
		Example: `  parley sessions list
  parley sessions list --wide
  parley sessions list --json | jq -r '.[0].id'`,
		Args: cobra.NoArgs,
	}, runF, sessionsListRun)
	cmd.Flags().BoolVar(&opts.Wide, "wide", false, "every column (full id, agents, tokens) and whole titles, however wide")
	return cmd
}

func sessionsListRun(o *SessionsOptions) error {
	out := o.F.IO.Out
	return readStore(o.F, func(st *store.Store) error {
		list := []store.Summary{}
		if st != nil {
			var err error
			if list, err = st.List(o.Ctx); err != nil {
				return err
			}
			if list == nil {
				list = []store.Summary{}
			}
		}
		if o.F.Flags.JSON {
			enc := json.NewEncoder(sanitize.JSONWriter(out))
			enc.SetIndent("", "  ")
			return enc.Encode(list)
		}
		if len(list) == 0 {
			fmt.Fprintln(o.F.IO.ErrOut, "no saved sessions yet")
			return nil
		}
		var table strings.Builder // one write, or one pager when taller than the terminal
		if err := headless.SessionList(&table, list, o.F.Now(), outputWidth(o.F), o.Wide); err != nil {
			return err
		}
		return pager.Write(out, table.String(), o.F.Getenv)
	})
}

// NewCmdSessionsShow is parley sessions show; runF, when given, replaces
// its run (sessionsShowRun).
func NewCmdSessionsShow(f *factory.Factory, runF func(*SessionsOptions) error) *cobra.Command {
	cmd, _ := newSessionsCmd(f, &cobra.Command{
		Use:   "show ID",
		Short: "Print a saved session's transcript (--json: the whole log)",
		Args:  cobra.ExactArgs(1),
	}, runF, sessionsShowRun)
	return cmd
}

func sessionsShowRun(o *SessionsOptions) error {
	out := o.F.IO.Out
	return withSession(o.F, o.Args[0], true, func(st *store.Store, id string) error {
		info, entries, err := st.Load(o.Ctx, id)
		if err != nil {
			return err
		}
		if o.F.Flags.JSON {
			return store.WriteJSON(out, info, entries)
		}
		headless.Transcript(out, info, entries)
		fmt.Fprintln(out, spend.CacheStatsOf(sessionPrices(o.F), entries).String())
		return nil
	})
}

// sessionPrices is the configuration whose catalogue prices a saved
// session's cache savings; without a readable one, nothing is priced.
func sessionPrices(f *factory.Factory) *config.Config {
	loaded, err := f.Config()
	if err != nil {
		return &config.Config{}
	}
	return loaded.Config
}
