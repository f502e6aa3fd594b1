package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/selfcmd"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// SessionsImportOptions are parley sessions import's flags and argument.
type SessionsImportOptions struct {
	F     *factory.Factory
	Ctx   context.Context
	File  string // the export to read ("-": stdin)
	NewID bool   // --new-id
}

// NewCmdSessionsImport is parley sessions import, which reads a file
// written by `sessions export --format json` into the database: the
// inverse of export, so sessions move between machines whole. runF, when
// given, replaces its run (sessionsImportRun).
func NewCmdSessionsImport(f *factory.Factory, runF func(*SessionsImportOptions) error) *cobra.Command {
	opts := &SessionsImportOptions{F: f}
	cmd := &cobra.Command{
		Use:   "import FILE.json",
		Short: "Import a session from a JSON export (the inverse of export --format json)",
		Long: `Import reads a file written by parley sessions export --format json ("-"
reads stdin; an agent-mode session's json is the seed's agent conversation:
export it with --format session) and saves the session as it was: same ID, turns, summaries,
usage and times, so exporting it again gives the same file. The whole file
is checked first and written in one transaction: a malformed file, or one
written by a newer Parley, is refused and nothing is saved. An ID already in
the database is refused too; --new-id keeps the import beside it.`,
		Example: `  parley sessions export 3f2a --format json -o debate.json
  parley sessions import debate.json --db other.db`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.File = cmd.Context(), args[0]
			return runCmd(runF, sessionsImportRun, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.NewID, "new-id", false, "save under a new session ID (to keep a copy beside the original)")
	return cmd
}

func sessionsImportRun(o *SessionsImportOptions) error {
	g, out := o.F.Flags, o.F.IO.Out
	in := o.F.IO.In
	if o.File != "-" {
		f, err := os.Open(o.F.Path(o.File))
		if err != nil {
			return cli.Usage(err)
		}
		defer f.Close()
		in = f
	}
	info, entries, err := store.ReadJSON(in)
	var bad *store.ImportError
	if errors.As(err, &bad) {
		return cli.Usage(fmt.Errorf("%s: %w", o.File, err))
	}
	if err != nil {
		return err
	}
	if _, ok := g.Modes.Spec(info.Mode); info.Mode != "" && !ok {
		return cli.Usage(fmt.Errorf("%s: import: %s", o.File, g.Modes.Unknown(info.Mode)))
	}
	st, _, err := o.F.Store()
	if err != nil {
		return err
	}
	defer st.Close()
	saved, err := st.Import(o.Ctx, info, entries, o.NewID)
	if errors.Is(err, store.ErrExists) {
		return cli.Usage(err)
	}
	if err != nil {
		return err
	}
	if g.JSON {
		return json.NewEncoder(sanitize.JSONWriter(out)).Encode(map[string]any{"id": saved.ID, "turns": len(entries)})
	}
	fmt.Fprintln(out, saved.ID)
	fmt.Fprintf(o.F.IO.ErrOut, "imported %d turns as session %s; continue with: %s --resume %s\n", len(entries), saved.ID, selfcmd.Name(), saved.ID)
	return nil
}
