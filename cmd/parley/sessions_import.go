package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/selfcmd"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// sessionsImportCmd reads a file written by `sessions export --format json`
// into the database: the inverse of export, so sessions move between
// machines whole.
func sessionsImportCmd(g *globalFlags) *cobra.Command {
	var newID bool
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
			var in io.Reader = cmd.InOrStdin()
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usageErr(err)
				}
				defer f.Close()
				in = f
			}
			info, entries, err := store.ReadJSON(in)
			var bad *store.ImportError
			if errors.As(err, &bad) {
				return usageErr(fmt.Errorf("%s: %w", args[0], err))
			}
			if err != nil {
				return err
			}
			if _, ok := g.Modes.Spec(info.Mode); info.Mode != "" && !ok {
				return usageErr(fmt.Errorf("%s: import: %s", args[0], g.Modes.Unknown(info.Mode)))
			}
			st, _, err := openDB(g)
			if err != nil {
				return err
			}
			defer st.Close()
			saved, err := st.Import(cmd.Context(), info, entries, newID)
			if errors.Is(err, store.ErrExists) {
				return usageErr(err)
			}
			if err != nil {
				return err
			}
			if g.JSON {
				return json.NewEncoder(sanitize.JSONWriter(cmd.OutOrStdout())).Encode(map[string]any{"id": saved.ID, "turns": len(entries)})
			}
			fmt.Fprintln(cmd.OutOrStdout(), saved.ID)
			fmt.Fprintf(cmd.ErrOrStderr(), "imported %d turns as session %s; continue with: %s --resume %s\n", len(entries), saved.ID, selfcmd.Name(), saved.ID)
			return nil
		},
	}
	cmd.Flags().BoolVar(&newID, "new-id", false, "save under a new session ID (to keep a copy beside the original)")
	return cmd
}
