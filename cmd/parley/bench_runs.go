package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/bench"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// The stored bench runs: list, show one (its report and per-problem
// records) and compare two problem by problem.

func benchListCmd(g *globalFlags) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Stored bench runs, newest first",
		Example: `  parley bench list
  parley bench list --json | jq -r '.[0].run'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return readStore(g, func(st *store.Store) error {
				runs := []bench.RunListing{}
				if st != nil {
					var err error
					if runs, err = bench.ListRuns(cmd.Context(), st, limit); err != nil {
						return err
					}
				}
				if g.JSON {
					return bench.WriteJSON(cmd.OutOrStdout(), runs)
				}
				bench.WriteList(cmd.OutOrStdout(), runs)
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "at most this many runs (0: all)")
	return cmd
}

// storedReport reads a stored run's report, or says there is no database.
func storedReport(cmd *cobra.Command, st *store.Store, ref string) (bench.Report, error) {
	if st == nil {
		return bench.Report{}, usageErr(fmt.Errorf("no bench run %q: no session database yet", sanitize.Text(ref)))
	}
	rep, err := bench.StoredReport(cmd.Context(), st, ref, 0)
	if errors.Is(err, store.ErrNotFound) {
		err = usageErr(err)
	}
	return rep, err
}

func benchShowCmd(g *globalFlags) *cobra.Command {
	var htmlPath string
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "A stored bench run's report (--json: with every problem's record under items)",
		Example: `  parley bench show 3f2a9c
  parley bench show 3f2a9c --json | jq '.items[] | select(.conditions.verdict_r3.correct | not) | .id'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return readStore(g, func(st *store.Store) error {
				rep, err := storedReport(cmd, st, args[0])
				if err != nil {
					return err
				}
				if htmlPath != "" {
					if err := bench.WriteHTMLFile(htmlPath, rep); err != nil {
						return err
					}
				}
				if g.JSON {
					return bench.WriteJSON(cmd.OutOrStdout(), rep)
				}
				bench.WriteText(cmd.OutOrStdout(), rep)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write the self-contained HTML report to FILE")
	return cmd
}

func benchCompareCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "compare RUN1 RUN2",
		Short: "Two stored bench runs paired problem by problem: per condition, accuracy on the shared problems and the exact McNemar test",
		Example: `  parley bench compare 3f2a9c 9b01d4
  parley bench compare 3f2a9c 9b01d4 --json | jq '.conditions[] | select(.p_value < 0.05)'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return readStore(g, func(st *store.Store) error {
				a, err := storedReport(cmd, st, args[0])
				if err != nil {
					return err
				}
				b, err := storedReport(cmd, st, args[1])
				if err != nil {
					return err
				}
				c := bench.CompareRuns(a, b)
				if g.JSON {
					return bench.WriteJSON(cmd.OutOrStdout(), c)
				}
				bench.WriteComparison(cmd.OutOrStdout(), c)
				return nil
			})
		},
	}
}
