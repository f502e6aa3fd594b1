package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/bench"
	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
)

// GSM8KInstallOptions are parley bench gsm8k-install's flags and argument.
type GSM8KInstallOptions struct {
	F        *factory.Factory
	Ctx      context.Context
	File     string              // a copy on disk to install ("": download)
	Download bench.GSM8KDownload // --url, --timeout
}

// NewCmdGSM8KInstall is parley bench gsm8k-install: it downloads (or takes
// from disk) the GSM8K test set, checks it against the published sha256
// and keeps a compressed copy where builtin:gsm8k finds it. runF, when
// given, replaces its run (gsm8kInstallRun).
func NewCmdGSM8KInstall(f *factory.Factory, runF func(*GSM8KInstallOptions) error) *cobra.Command {
	opts := &GSM8KInstallOptions{F: f}
	d := &opts.Download
	cmd := &cobra.Command{
		Use:   "gsm8k-install [FILE]",
		Short: "Download GSM8K's test set, check it and keep it for builtin:gsm8k",
		Long: `Parley does not ship GSM8K (MIT licence; Cobbe et al. 2021, "Training Verifiers
to Solve Math Word Problems"). Without FILE, the test split is downloaded from

  ` + bench.GSM8KURL + `

(or --url, or $` + bench.GSM8KURLEnv + `, for a mirror; plain or gzip) and checked against
the published sha256 ` + bench.GSM8KSHA256 + `:
any other file is refused and nothing is installed. FILE installs a copy from disk,
checked the same way; a valid file that is not the published one (1,319 problems,
each line {"question": …, "answer": "…#### 72"}) is accepted with a warning.
The copy is kept gzip-compressed at $XDG_DATA_HOME/parley/gsm8k/test.jsonl.gz
(~/.local/share/…).`,
		Example: `  parley bench gsm8k-install
  parley bench gsm8k-install --url https://mirror.example/gsm8k/test.jsonl.gz
  parley bench gsm8k-install ~/Downloads/test.jsonl
  parley bench builtin:gsm8k --n 50 --seed 7`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.File = cmd.Context(), ""
			if len(args) == 1 {
				opts.File = args[0]
			}
			return runCmd(runF, gsm8kInstallRun, opts)
		},
	}
	cmd.Flags().StringVar(&d.URL, "url", "", "download from this address (a mirror; default: $"+bench.GSM8KURLEnv+", then the official one)")
	cmd.Flags().DurationVar(&d.Timeout, "timeout", bench.DefaultGSM8KTimeout, "give up a download that takes longer")
	return cmd
}

func gsm8kInstallRun(o *GSM8KInstallOptions) error {
	var in bench.InstalledGSM8K
	var err error
	d, errOut := o.Download, o.F.IO.ErrOut
	if o.File != "" {
		if d.URL != "" {
			return cli.Usage(fmt.Errorf("give FILE or --url, not both"))
		}
		in, err = bench.InstallGSM8K(o.F.Path(o.File), o.F.Getenv)
	} else {
		d.Progress, d.TTY = errOut, o.F.IO.ErrTTY
		in, err = bench.DownloadGSM8K(o.Ctx, d, o.F.Getenv)
	}
	if err != nil {
		return err
	}
	if !in.Published {
		fmt.Fprintln(errOut, in.NotPublishedWarning(o.File))
	}
	fmt.Fprintf(o.F.IO.Out, "GSM8K: %d problems checked (sha256 %s) and kept at %s\n", in.Problems, in.SHA256, in.Dest)
	return nil
}
