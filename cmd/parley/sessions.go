package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/pager"
	"github.com/parleyhq/parley/cmd/parley/internal/selfcmd"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

func newSessionsCmd(g *globalFlags) *cobra.Command {
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
	sub := []*cobra.Command{sessionsListCmd(g), sessionsShowCmd(g), sessionsExportCmd(g), sessionsRmCmd(g), sessionsRenameCmd(g), sessionsForkCmd(g), sessionsImportCmd(g), sessionsUnlockCmd(g), sessionsCopyCmd(g)}
	for _, c := range sub {
		wrapArgs(c)
		cmd.AddCommand(c)
	}
	return cmd
}

// withStore opens the database for a sessions command that writes. A
// database that does not exist yet is not created: there is nothing in it.
func withStore(g *globalFlags, f func(*store.Store) error) error {
	return openStoreFor(g, store.Open, f)
}

// readStore opens the database read-only for a sessions command that only
// reads (list, show, export): it works on read-only media and never
// writes, not even a pragma.
func readStore(g *globalFlags, f func(*store.Store) error) error {
	return openStoreFor(g, store.OpenReadOnly, f)
}

func openStoreFor(g *globalFlags, open func(string) (*store.Store, error), f func(*store.Store) error) error {
	path, err := dbPath(g)
	if err != nil {
		return err
	}
	if _, err := os.Stat(store.SQLitePath(path)); !store.IsPostgres(path) && errors.Is(err, os.ErrNotExist) {
		return f(nil)
	}
	st, err := open(path)
	if err != nil {
		return fmt.Errorf("session database: %w", err)
	}
	defer st.Close()
	return f(st)
}

// withSession opens the database and resolves the session ID or prefix
// ref for a sessions command that works on one session; readOnly for the
// commands that only read it.
func withSession(g *globalFlags, ref string, readOnly bool, f func(st *store.Store, id string) error) error {
	with := withStore
	if readOnly {
		with = readStore
	}
	return with(g, func(st *store.Store) error {
		id, err := resolveArg(context.Background(), st, ref)
		if err != nil {
			return err
		}
		return f(st, id)
	})
}

// resolveArg resolves an ID or prefix given on the command line.
func resolveArg(ctx context.Context, st *store.Store, ref string) (string, error) {
	if st == nil {
		return "", usageErr(fmt.Errorf("no session matches %q: nothing has been saved yet", ref))
	}
	id, err := st.Resolve(ctx, ref)
	return id, sessionRefErr("session", err)
}

func sessionsListCmd(g *globalFlags) *cobra.Command {
	var wide bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "Saved sessions, the most recently active first",
		Example: `  parley sessions list
  parley sessions list --wide
  parley sessions list --json | jq -r '.[0].id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return readStore(g, func(st *store.Store) error {
				list := []store.Summary{}
				if st != nil {
					var err error
					if list, err = st.List(cmd.Context()); err != nil {
						return err
					}
					if list == nil {
						list = []store.Summary{}
					}
				}
				if g.JSON {
					enc := json.NewEncoder(sanitize.JSONWriter(cmd.OutOrStdout()))
					enc.SetIndent("", "  ")
					return enc.Encode(list)
				}
				if len(list) == 0 {
					fmt.Fprintln(cmd.ErrOrStderr(), "no saved sessions yet")
					return nil
				}
				var table strings.Builder // one write, or one pager when taller than the terminal
				if err := headless.SessionList(&table, list, time.Now(), outputWidth(cmd.OutOrStdout()), wide); err != nil {
					return err
				}
				return pager.Write(cmd.OutOrStdout(), table.String(), os.Getenv)
			})
		},
	}
	cmd.Flags().BoolVar(&wide, "wide", false, "every column (full id, agents, tokens) and whole titles, however wide")
	return cmd
}

func sessionsShowCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print a saved session's transcript (--json: the whole log)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(g, args[0], true, func(st *store.Store, id string) error {
				ctx := cmd.Context()
				info, entries, err := st.Load(ctx, id)
				if err != nil {
					return err
				}
				if g.JSON {
					return store.WriteJSON(cmd.OutOrStdout(), info, entries)
				}
				headless.Transcript(cmd.OutOrStdout(), info, entries)
				fmt.Fprintln(cmd.OutOrStdout(), sessionPrices(cmd, g).CacheStatsOf(entries).String())
				return nil
			})
		},
	}
}

func sessionsExportCmd(g *globalFlags) *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Export a session as Markdown (for people) or JSON (for machines)",
		Example: `  parley sessions export 3f2a --format md > debate.md
  parley sessions export 3f2a --format json -o debate.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.JSON { // the global --json means the JSON export here
				if cmd.Flags().Changed("format") && format != "json" {
					return usageErr(fmt.Errorf("--json and --format %s disagree: drop one (--json means --format json)", format))
				}
				format = "json"
			}
			if format != "md" && format != "json" && format != "session" {
				return usageErr(fmt.Errorf("--format: %q is not md, json or session", format))
			}
			return withSession(g, args[0], true, func(st *store.Store, id string) error {
				ctx := cmd.Context()
				if output == "" || output == "-" {
					return st.Export(ctx, cmd.OutOrStdout(), id, format)
				}
				if err := st.ExportFile(ctx, output, id, format); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "exported %s to %s\n", id, output)
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "md", "md, json, or session (the whole session as sessions import reads it; json but for agent sessions)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

func sessionsRmCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:     "rm ID...",
		Aliases: []string{"delete"},
		Short:   "Delete saved sessions",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(g, func(st *store.Store) error {
				ctx := cmd.Context()
				// Resolve every reference first: a typo deletes nothing.
				ids := make([]string, len(args))
				for i, ref := range args {
					id, err := resolveArg(ctx, st, ref)
					if err != nil {
						return err
					}
					ids[i] = id
				}
				for _, id := range ids {
					if err := st.Delete(ctx, id); err != nil {
						return err
					}
					if !g.JSON {
						fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", id)
					}
				}
				if g.JSON {
					return json.NewEncoder(sanitize.JSONWriter(cmd.OutOrStdout())).Encode(map[string][]string{"deleted": ids})
				}
				return nil
			})
		},
	}
}

func sessionsRenameCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:     "rename ID TITLE",
		Aliases: []string{"title"},
		Short:   "Give a saved session a title of your own",
		Example: `  parley sessions rename 3f2a "queue choice: Kafka vs NATS"`,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			title := strings.Join(strings.Fields(strings.Join(args[1:], " ")), " ")
			if title == "" {
				return usageErr(errors.New("the new title is empty"))
			}
			return withSession(g, args[0], false, func(st *store.Store, id string) error {
				if err := st.Rename(cmd.Context(), id, title); err != nil {
					return err
				}
				if g.JSON {
					return json.NewEncoder(sanitize.JSONWriter(cmd.OutOrStdout())).Encode(map[string]string{"id": id, "title": title})
				}
				fmt.Fprintf(cmd.OutOrStdout(), "renamed %s to %q\n", id, title)
				return nil
			})
		},
	}
}

func sessionsForkCmd(g *globalFlags) *cobra.Command {
	var at string
	cmd := &cobra.Command{
		Use:   "fork ID --at TURN",
		Short: "Copy a session up to a turn into a new session, to continue it another way",
		Long: `Fork copies the history up to and including turn --at (default: all of
it) into a new session that records where it came from. Continue the fork in
any mode, e.g. to compare the verdicts of two MAGI runs on the same debate.`,
		Example: `  parley sessions fork 3f2a --at 4
  parley --resume NEWID --mode magi
  parley ask --session NEWID "@claude given all that, should we ship?"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			turn := 0 // 0: the whole session
			if at != "" {
				var err error
				if turn, err = strconv.Atoi(at); err != nil || turn < 1 {
					return usageErr(fmt.Errorf("--at: %q is not a turn number", at))
				}
			}
			return withSession(g, args[0], false, func(st *store.Store, id string) error {
				fork, err := st.Fork(cmd.Context(), id, turn)
				if errors.Is(err, store.ErrNoTurn) {
					return usageErr(fmt.Errorf("--at: %w", err))
				}
				if err != nil {
					return err
				}
				if g.JSON {
					return json.NewEncoder(sanitize.JSONWriter(cmd.OutOrStdout())).Encode(fork)
				}
				fmt.Fprintln(cmd.OutOrStdout(), fork.ID)
				fmt.Fprintf(cmd.ErrOrStderr(), "forked %s at turn %d; continue with: %s --resume %s\n", id, fork.ForkAt, selfcmd.Name(), fork.ID)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&at, "at", "", "last turn to copy (default: the whole session)")
	return cmd
}

// sessionPrices is the configuration whose catalogue prices a saved
// session's cache savings; without a readable one, nothing is priced.
func sessionPrices(cmd *cobra.Command, g *globalFlags) *debate.Config {
	loaded, err := loadConfiguration(cmd, g)
	if err != nil {
		return &debate.Config{}
	}
	return loaded.Config
}
