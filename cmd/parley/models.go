package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/catalog"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
)

// ModelsOptions are parley models's arguments.
type ModelsOptions struct {
	F     *factory.Factory
	Model string // the one model to describe ("": the table)
}

// NewCmdModels is parley models, what Parley believes about every model and
// where each figure came from, and models update, which refreshes it from
// catwalk; each does its own run.
func NewCmdModels(f *factory.Factory) *cobra.Command {
	cmd := NewCmdModelsShow(f, nil)
	cmd.AddCommand(NewCmdModelsUpdate(f, nil))
	return cmd
}

// NewCmdModelsShow is parley models itself; runF, when given, replaces its
// run (modelsRun).
func NewCmdModelsShow(f *factory.Factory, runF func(*ModelsOptions) error) *cobra.Command {
	opts := &ModelsOptions{F: f}
	return &cobra.Command{
		Use:   "models [MODEL]",
		Short: "Show the model catalogue: prices, limits, effort levels, status and their sources",
		Long: `Every model of the catalogue, in a table that fits 100 columns: provider,
model, input/output and cache read/write prices (USD per 1M tokens, in force
today), context window, effort levels, status with its dates, and where the
prices came from (parley: Parley's own dated entry; catwalk: fetched by
'parley models update'). With MODEL: that model's every figure with its
layer, source page and date. --json prints the same as JSON.`,
		Example: `  parley models
  parley models claude-haiku-5-5
  parley models --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Model = ""
			if len(args) == 1 {
				opts.Model = args[0]
			}
			return runCmd(runF, modelsRun, opts)
		},
	}
}

func modelsRun(o *ModelsOptions) error {
	loaded, err := o.F.Config()
	if err != nil {
		return err
	}
	cat, now, w, asJSON := loaded.Config.Models, o.F.Now(), o.F.IO.Out, o.F.Flags.JSON
	if o.Model != "" {
		_, _, known := cat.Entry(o.Model)
		row := catalog.RowOf(cat, o.Model, now)
		if asJSON {
			return catalog.JSON(w, []catalog.Row{row})
		}
		catalog.Describe(w, row, known)
		return nil
	}
	if asJSON {
		return catalog.JSON(w, catalog.Rows(cat, now))
	}
	catalog.Table(w, catalog.Rows(cat, now))
	return nil
}

// ModelsUpdateOptions are parley models update's flags.
type ModelsUpdateOptions struct {
	F      *factory.Factory
	Ctx    context.Context
	Source string // --source
}

// NewCmdModelsUpdate is parley models update; runF, when given, replaces
// its run (modelsUpdateRun).
func NewCmdModelsUpdate(f *factory.Factory, runF func(*ModelsUpdateOptions) error) *cobra.Command {
	opts := &ModelsUpdateOptions{F: f}
	cmd := &cobra.Command{
		Use:   "update [--source URL]",
		Short: "Fetch catwalk's model catalogue (prices, limits, effort levels) and keep it",
		Long: `Fetch catwalk's /v2/providers (Charm's public service; $CATWALK_URL or
--source picks another) with the ETag of the catalogue kept, check it and keep
openai's, anthropic's and gemini's models in the user's cache directory
($PARLEY_CACHE_DIR overrides). Refused, with the catalogue kept as it was: an
answer over 8 MiB, anything after the JSON, an id outside letters, digits and
. - _ : / @ (or over 128 characters), an id listed twice, a price or token
limit that is not finite, is negative or is absurd (over $10,000 per 1M tokens,
100M tokens), any of the three providers missing, and a 304 that
does not answer the ETag of a copy kept from this same source. A fetched price
replaces a dated Parley entry only when the source dates its data
(Last-Modified) after the entry's check date.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			return runCmd(runF, modelsUpdateRun, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Source, "source", "", "catwalk service URL (default: $CATWALK_URL, then "+catalog.DefaultURL+")")
	return cmd
}

func modelsUpdateRun(o *ModelsUpdateOptions) error {
	getenv, out := o.F.Getenv, o.F.IO.Out
	res, err := catalog.Update(o.Ctx, catalog.URL(o.Source, getenv), o.F.Now(), getenv)
	if err != nil {
		return err
	}
	if res.Unchanged {
		fmt.Fprintf(out, "catalogue unchanged (%s): %d providers, %d models, confirmed %s\n",
			res.Source, res.Providers, res.Models, res.Fetched.Format("2006-01-02"))
		return nil
	}
	dated := "undated: its prices never replace a dated Parley entry"
	if res.Dated != "" {
		dated = "data dated " + res.Dated
	}
	fmt.Fprintf(out, "catalogue updated from %s: %d providers, %d models, fetched %s (%s)\n",
		res.Source, res.Providers, res.Models, res.Fetched.Format("2006-01-02"), dated)
	return nil
}
