package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// SessionsUnlockOptions are parley sessions unlock's flag and argument.
type SessionsUnlockOptions struct {
	F     *factory.Factory
	Ctx   context.Context
	Ref   string // the session's ID or prefix
	Force bool   // --force
}

// NewCmdSessionsUnlock is parley sessions unlock; runF, when given,
// replaces its run (sessionsUnlockRun).
func NewCmdSessionsUnlock(f *factory.Factory, runF func(*SessionsUnlockOptions) error) *cobra.Command {
	opts := &SessionsUnlockOptions{F: f}
	cmd := &cobra.Command{
		Use:   "unlock ID",
		Short: "Clear a session's lease left by a process that no longer runs",
		Long: `A process writing a session holds its lease until it gives it back or its
heartbeat lapses (PARLEY_LEASE_TTL, 15s). unlock clears a lease whose holder
is not alive: a process on this host whose pid no longer runs. A holder that
still runs, or one on another host (whose pid cannot be checked from here),
is cleared only with --force; that process's later writes are then refused,
and the next writer settles the answer it left streaming.`,
		Example: `  parley sessions unlock 3f2a
  parley sessions unlock 3f2a --force`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Ref = cmd.Context(), args[0]
			return runCmd(runF, sessionsUnlockRun, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "clear the lease even if its holder may still run")
	return cmd
}

func sessionsUnlockRun(o *SessionsUnlockOptions) error {
	w := o.F.IO.Out
	return withSession(o.F, o.Ref, false, func(st *store.Store, id string) error {
		held, err := st.Unlock(o.Ctx, id, o.Force)
		free := errors.Is(err, store.ErrNoLease)
		if err != nil && !free {
			return err
		}
		if o.F.Flags.JSON {
			out := map[string]any{"id": id, "cleared": !free}
			if !free {
				out["holder"] = held
			}
			return json.NewEncoder(w).Encode(out)
		}
		if free {
			fmt.Fprintf(w, "session %s has no lease: nothing to clear\n", id)
			return nil
		}
		// The holder's door and host come from the database: never raw to a terminal.
		fmt.Fprintln(w, sanitize.Text(fmt.Sprintf("cleared the lease of session %s held by %s since %s UTC",
			id, held, held.Since.UTC().Format("2006-01-02 15:04:05"))))
		return nil
	})
}
