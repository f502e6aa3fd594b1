package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/bench"
	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
)

// The stored bench runs: list, show one (its report and per-problem
// records) and compare two problem by problem.

// BenchRunsOptions are the options of bench list, show and compare.
type BenchRunsOptions struct {
	F     *factory.Factory
	Ctx   context.Context
	Runs  []string // show's RUN, compare's RUN1 RUN2 (IDs or prefixes)
	Limit int      // list --limit
	HTML  string   // show --html FILE
}

// newBenchRunsCmd is a stored runs' command running run, or runF when a
// test replaced it, with the options the command line filled.
func newBenchRunsCmd(f *factory.Factory, c *cobra.Command, runF, run func(*BenchRunsOptions) error) (*cobra.Command, *BenchRunsOptions) {
	opts := &BenchRunsOptions{F: f}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		opts.Ctx, opts.Runs = cmd.Context(), args
		return runCmd(runF, run, opts)
	}
	return c, opts
}

// NewCmdBenchList is parley bench list; runF, when given, replaces its run.
func NewCmdBenchList(f *factory.Factory, runF func(*BenchRunsOptions) error) *cobra.Command {
	cmd, opts := newBenchRunsCmd(f, &cobra.Command{
		Use:   "list",
		Short: "Stored bench runs, newest first",
		Example: `  parley bench list
  parley bench list --json | jq -r '.[0].run'`,
		Args: cobra.NoArgs,
	}, runF, benchListRun)
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "at most this many runs (0: all)")
	return cmd
}

func benchListRun(o *BenchRunsOptions) error {
	return readStore(o.F, func(st *store.Store) error {
		runs := []bench.RunListing{}
		if st != nil {
			var err error
			if runs, err = bench.ListRuns(o.Ctx, st, o.Limit); err != nil {
				return err
			}
		}
		if o.F.Flags.JSON {
			return bench.WriteJSON(o.F.IO.Out, runs)
		}
		bench.WriteList(o.F.IO.Out, runs)
		return nil
	})
}

// storedReport reads a stored run's report, or says there is no database.
func storedReport(ctx context.Context, st *store.Store, ref string) (bench.Report, error) {
	if st == nil {
		return bench.Report{}, cli.Usage(fmt.Errorf("no bench run %q: no session database yet", sanitize.Text(ref)))
	}
	rep, err := bench.StoredReport(ctx, st, ref, 0)
	if errors.Is(err, store.ErrNotFound) {
		err = cli.Usage(err)
	}
	return rep, err
}

// NewCmdBenchShow is parley bench show; runF, when given, replaces its run.
func NewCmdBenchShow(f *factory.Factory, runF func(*BenchRunsOptions) error) *cobra.Command {
	cmd, opts := newBenchRunsCmd(f, &cobra.Command{
		Use:   "show RUN",
		Short: "A stored bench run's report (--json: with every problem's record under items)",
		Example: `  parley bench show 3f2a9c
  parley bench show 3f2a9c --json | jq '.items[] | select(.conditions.verdict_r3.correct | not) | .id'`,
		Args: cobra.ExactArgs(1),
	}, runF, benchShowRun)
	cmd.Flags().StringVar(&opts.HTML, "html", "", "also write the self-contained HTML report to FILE")
	return cmd
}

func benchShowRun(o *BenchRunsOptions) error {
	return readStore(o.F, func(st *store.Store) error {
		rep, err := storedReport(o.Ctx, st, o.Runs[0])
		if err != nil {
			return err
		}
		if o.HTML != "" {
			if err := bench.WriteHTMLFile(o.F.Path(o.HTML), rep); err != nil {
				return err
			}
		}
		if o.F.Flags.JSON {
			return bench.WriteJSON(o.F.IO.Out, rep)
		}
		bench.WriteText(o.F.IO.Out, rep)
		return nil
	})
}

// NewCmdBenchCompare is parley bench compare; runF, when given, replaces
// its run.
func NewCmdBenchCompare(f *factory.Factory, runF func(*BenchRunsOptions) error) *cobra.Command {
	cmd, _ := newBenchRunsCmd(f, &cobra.Command{
		Use:   "compare RUN1 RUN2",
		Short: "Two stored bench runs paired problem by problem: per condition, accuracy on the shared problems and the exact McNemar test",
		Example: `  parley bench compare 3f2a9c 9b01d4
  parley bench compare 3f2a9c 9b01d4 --json | jq '.conditions[] | select(.p_value < 0.05)'`,
		Args: cobra.ExactArgs(2),
	}, runF, benchCompareRun)
	return cmd
}

func benchCompareRun(o *BenchRunsOptions) error {
	return readStore(o.F, func(st *store.Store) error {
		a, err := storedReport(o.Ctx, st, o.Runs[0])
		if err != nil {
			return err
		}
		b, err := storedReport(o.Ctx, st, o.Runs[1])
		if err != nil {
			return err
		}
		c := bench.CompareRuns(a, b)
		if o.F.Flags.JSON {
			return bench.WriteJSON(o.F.IO.Out, c)
		}
		bench.WriteComparison(o.F.IO.Out, c)
		return nil
	})
}
