package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// newDBCmd is parley db: the session database itself (issue 49).
func newDBCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "The session database: bring its schema up to date",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	migrate := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the schema steps the database lacks (every command does on start); refuse a newer one",
		Long: `Migrate brings the session database (--db, $PARLEY_DB, store.url: a SQLite file or a
postgres:// URL) to this parley's schema, each step in its own transaction.
Every command does the same when it opens the database; run this before
starting several parley serve replicas after an upgrade. A database a newer
parley wrote is refused, and nothing is written to it.`,
		Example: `  parley db migrate --db postgres://parley@db:5432/parley`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, _, err := openDB(g)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Ready(cmd.Context()); err != nil {
				return err
			}
			version, kind := store.SchemaVersion, "sqlite"
			if st.IsPostgres() {
				version, kind = store.PostgresSchemaVersion, "postgres"
			}
			if g.JSON {
				return sanitize.NewJSONEncoder(cmd.OutOrStdout()).Encode(map[string]any{
					"database": st.Path(), "kind": kind, "schema_version": version})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: schema version %d (%s), up to date\n", sanitize.Text(st.Path()), version, kind)
			return nil
		},
	}
	cmd.AddCommand(migrate)
	return cmd
}

// sessionsCopyCmd copies every session from one database to another.
func sessionsCopyCmd(g *globalFlags) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy --from DB --to DB",
		Short: "Copy every session from one database to another (a SQLite file to Postgres); run again, it copies only what is missing",
		Long: `Copy writes every session of --from that --to does not have, each whole in
one transaction (ID, turns, summaries, usage, times and owner). Either side
is a SQLite file or a postgres:// URL. A session --to already has is left as
it is, so copying again, or after an interruption, writes only the rest.
Custom agents, webhook deliveries and bench runs are not copied.`,
		Example: `  parley sessions copy --from ~/.local/share/parley/parley.db --to postgres://parley@db:5432/parley`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return usageErr(fmt.Errorf("copy needs --from and --to"))
			}
			src, err := store.OpenReadOnly(from)
			if err != nil {
				return fmt.Errorf("--from: %w", err)
			}
			defer src.Close()
			dst, err := store.Open(to)
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			defer dst.Close()
			rep, err := store.Copy(cmd.Context(), src, dst)
			if err != nil {
				return err
			}
			if g.JSON {
				return sanitize.NewJSONEncoder(cmd.OutOrStdout()).Encode(rep)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "copied %d sessions (%d turns) to %s; %d were there already\n",
				rep.Copied, rep.Turns, sanitize.Text(dst.Path()), rep.Skipped)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the database to copy from (a SQLite file or a postgres:// URL)")
	cmd.Flags().StringVar(&to, "to", "", "the database to copy to (a SQLite file or a postgres:// URL)")
	return cmd
}
