package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

func sessionsUnlockCmd(g *globalFlags) *cobra.Command {
	var force bool
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
			return withSession(g, args[0], false, func(st *store.Store, id string) error {
				held, err := st.Unlock(cmd.Context(), id, force)
				free := errors.Is(err, store.ErrNoLease)
				if err != nil && !free {
					return err
				}
				if g.JSON {
					out := map[string]any{"id": id, "cleared": !free}
					if !free {
						out["holder"] = held
					}
					return json.NewEncoder(cmd.OutOrStdout()).Encode(out)
				}
				if free {
					fmt.Fprintf(cmd.OutOrStdout(), "session %s has no lease: nothing to clear\n", id)
					return nil
				}
				// The holder's door and host come from the database: never raw to a terminal.
				fmt.Fprintln(cmd.OutOrStdout(), sanitize.Text(fmt.Sprintf("cleared the lease of session %s held by %s since %s UTC",
					id, held, held.Since.UTC().Format("2006-01-02 15:04:05"))))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "clear the lease even if its holder may still run")
	return cmd
}
