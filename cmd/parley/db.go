package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// NewCmdDB is parley db: the session database itself (issue 49).
func NewCmdDB(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "The session database: bring its schema up to date",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(NewCmdDBMigrate(f, nil))
	return cmd
}

// DBOptions are parley db migrate's (the shared flags are in F.Flags).
type DBOptions struct {
	F   *factory.Factory
	Ctx context.Context
}

// NewCmdDBMigrate is parley db migrate; runF, when given, replaces its run
// (dbMigrateRun).
func NewCmdDBMigrate(f *factory.Factory, runF func(*DBOptions) error) *cobra.Command {
	opts := &DBOptions{F: f}
	return &cobra.Command{
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
			opts.Ctx = cmd.Context()
			return runCmd(runF, dbMigrateRun, opts)
		},
	}
}

func dbMigrateRun(o *DBOptions) error {
	st, _, err := o.F.Store()
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Ready(o.Ctx); err != nil {
		return err
	}
	version, kind := store.SchemaVersion, "sqlite"
	if st.IsPostgres() {
		version, kind = store.PostgresSchemaVersion, "postgres"
	}
	if o.F.Flags.JSON {
		return sanitize.NewJSONEncoder(o.F.IO.Out).Encode(map[string]any{
			"database": st.Path(), "kind": kind, "schema_version": version})
	}
	fmt.Fprintf(o.F.IO.Out, "%s: schema version %d (%s), up to date\n", sanitize.Text(st.Path()), version, kind)
	return nil
}

// SessionsCopyOptions are parley sessions copy's flags.
type SessionsCopyOptions struct {
	F        *factory.Factory
	Ctx      context.Context
	From, To string // --from, --to: SQLite files or postgres:// URLs
}

// NewCmdSessionsCopy is parley sessions copy, which copies every session
// from one database to another; runF, when given, replaces its run
// (sessionsCopyRun).
func NewCmdSessionsCopy(f *factory.Factory, runF func(*SessionsCopyOptions) error) *cobra.Command {
	opts := &SessionsCopyOptions{F: f}
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
			opts.Ctx = cmd.Context()
			return runCmd(runF, sessionsCopyRun, opts)
		},
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "the database to copy from (a SQLite file or a postgres:// URL)")
	cmd.Flags().StringVar(&opts.To, "to", "", "the database to copy to (a SQLite file or a postgres:// URL)")
	return cmd
}

func sessionsCopyRun(o *SessionsCopyOptions) error {
	if o.From == "" || o.To == "" {
		return cli.Usage(fmt.Errorf("copy needs --from and --to"))
	}
	src, err := store.OpenReadOnly(dbIn(o.F, o.From))
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	defer src.Close()
	dst, err := store.Open(dbIn(o.F, o.To))
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	defer dst.Close()
	rep, err := store.Copy(o.Ctx, src, dst)
	if err != nil {
		return err
	}
	if o.F.Flags.JSON {
		return sanitize.NewJSONEncoder(o.F.IO.Out).Encode(rep)
	}
	fmt.Fprintf(o.F.IO.Out, "copied %d sessions (%d turns) to %s; %d were there already\n",
		rep.Copied, rep.Turns, sanitize.Text(dst.Path()), rep.Skipped)
	return nil
}

// dbIn is a database named on the command line: a postgres:// URL as it
// is, a file seen from the working directory.
func dbIn(f *factory.Factory, db string) string {
	if store.IsPostgres(db) {
		return db
	}
	return f.Path(db)
}
