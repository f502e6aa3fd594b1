package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/selfcmd"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// NewCmdSessionsExport is parley sessions export; runF, when given,
// replaces its run (sessionsExportRun).
func NewCmdSessionsExport(f *factory.Factory, runF func(*SessionsOptions) error) *cobra.Command {
	cmd, opts := newSessionsCmd(f, &cobra.Command{
		Use:   "export ID",
		Short: "Export a session as Markdown (for people) or JSON (for machines)",
		Example: `  parley sessions export 3f2a --format md > debate.md
  parley sessions export 3f2a --format json -o debate.json`,
		Args: cobra.ExactArgs(1),
	}, runF, sessionsExportRun)
	cmd.Flags().StringVarP(&opts.Format, "format", "f", "md", "md, json, or session (the whole session as sessions import reads it; json but for agent sessions)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

func sessionsExportRun(o *SessionsOptions) error {
	format, output := o.Format, o.Output
	if o.F.Flags.JSON { // the global --json means the JSON export here
		if o.FormatSet && format != "json" {
			return cli.Usage(fmt.Errorf("--json and --format %s disagree: drop one (--json means --format json)", format))
		}
		format = "json"
	}
	if format != "md" && format != "json" && format != "session" {
		return cli.Usage(fmt.Errorf("--format: %q is not md, json or session", format))
	}
	return withSession(o.F, o.Args[0], true, func(st *store.Store, id string) error {
		if output == "" || output == "-" {
			return st.Export(o.Ctx, o.F.IO.Out, id, format)
		}
		if err := st.ExportFile(o.Ctx, o.F.Path(output), id, format); err != nil {
			return err
		}
		fmt.Fprintf(o.F.IO.ErrOut, "exported %s to %s\n", id, output)
		return nil
	})
}

// NewCmdSessionsRm is parley sessions rm; runF, when given, replaces its
// run (sessionsRmRun).
func NewCmdSessionsRm(f *factory.Factory, runF func(*SessionsOptions) error) *cobra.Command {
	cmd, _ := newSessionsCmd(f, &cobra.Command{
		Use:     "rm ID...",
		Aliases: []string{"delete"},
		Short:   "Delete saved sessions",
		Args:    cobra.MinimumNArgs(1),
	}, runF, sessionsRmRun)
	return cmd
}

func sessionsRmRun(o *SessionsOptions) error {
	out, asJSON := o.F.IO.Out, o.F.Flags.JSON
	return withStore(o.F, func(st *store.Store) error {
		// Resolve every reference first: a typo deletes nothing.
		ids := make([]string, len(o.Args))
		for i, ref := range o.Args {
			id, err := resolveArg(o.Ctx, st, ref)
			if err != nil {
				return err
			}
			ids[i] = id
		}
		for _, id := range ids {
			if err := st.Delete(o.Ctx, id); err != nil {
				return err
			}
			if !asJSON {
				fmt.Fprintf(out, "deleted %s\n", id)
			}
		}
		if asJSON {
			return json.NewEncoder(sanitize.JSONWriter(out)).Encode(map[string][]string{"deleted": ids})
		}
		return nil
	})
}

// NewCmdSessionsRename is parley sessions rename; runF, when given,
// replaces its run (sessionsRenameRun).
func NewCmdSessionsRename(f *factory.Factory, runF func(*SessionsOptions) error) *cobra.Command {
	cmd, _ := newSessionsCmd(f, &cobra.Command{
		Use:     "rename ID TITLE",
		Aliases: []string{"title"},
		Short:   "Give a saved session a title of your own",
		Example: `  parley sessions rename 3f2a "queue choice: Kafka vs NATS"`,
		Args:    cobra.MinimumNArgs(2),
	}, runF, sessionsRenameRun)
	return cmd
}

func sessionsRenameRun(o *SessionsOptions) error {
	out := o.F.IO.Out
	title := strings.Join(strings.Fields(strings.Join(o.Args[1:], " ")), " ")
	if title == "" {
		return cli.Usage(errors.New("the new title is empty"))
	}
	return withSession(o.F, o.Args[0], false, func(st *store.Store, id string) error {
		if err := st.Rename(o.Ctx, id, title); err != nil {
			return err
		}
		if o.F.Flags.JSON {
			return json.NewEncoder(sanitize.JSONWriter(out)).Encode(map[string]string{"id": id, "title": title})
		}
		fmt.Fprintf(out, "renamed %s to %q\n", id, title)
		return nil
	})
}

// NewCmdSessionsFork is parley sessions fork; runF, when given, replaces
// its run (sessionsForkRun).
func NewCmdSessionsFork(f *factory.Factory, runF func(*SessionsOptions) error) *cobra.Command {
	cmd, opts := newSessionsCmd(f, &cobra.Command{
		Use:   "fork ID --at TURN",
		Short: "Copy a session up to a turn into a new session, to continue it another way",
		Long: `Fork copies the history up to and including turn --at (default: all of
it) into a new session that records where it came from. Continue the fork in
any mode, e.g. to compare the verdicts of two MAGI runs on the same debate.`,
		Example: `  parley sessions fork 3f2a --at 4
  parley --resume NEWID --mode magi
  parley ask --session NEWID "@claude given all that, should we ship?"`,
		Args: cobra.ExactArgs(1),
	}, runF, sessionsForkRun)
	cmd.Flags().StringVar(&opts.At, "at", "", "last turn to copy (default: the whole session)")
	return cmd
}

func sessionsForkRun(o *SessionsOptions) error {
	out := o.F.IO.Out
	turn := 0 // 0: the whole session
	if o.At != "" {
		var err error
		if turn, err = strconv.Atoi(o.At); err != nil || turn < 1 {
			return cli.Usage(fmt.Errorf("--at: %q is not a turn number", o.At))
		}
	}
	return withSession(o.F, o.Args[0], false, func(st *store.Store, id string) error {
		fork, err := st.Fork(o.Ctx, id, turn)
		if errors.Is(err, store.ErrNoTurn) {
			return cli.Usage(fmt.Errorf("--at: %w", err))
		}
		if err != nil {
			return err
		}
		if o.F.Flags.JSON {
			return json.NewEncoder(sanitize.JSONWriter(out)).Encode(fork)
		}
		fmt.Fprintln(out, fork.ID)
		fmt.Fprintf(o.F.IO.ErrOut, "forked %s at turn %d; continue with: %s --resume %s\n", id, fork.ForkAt, selfcmd.Name(), fork.ID)
		return nil
	})
}
