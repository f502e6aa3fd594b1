package wiring

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/hostline"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
)

// AddCheckpointFlag gives a command whose mode pauses for its host
// --checkpoint: where the run waits for a line on stdin.
func AddCheckpointFlag(cmd *cobra.Command, g *Flags) {
	cmd.Flags().StringVar(&g.Checkpoint, "checkpoint", "",
		"wait for the host at the mode's checkpoints (between rounds or stages) and before a tool call under tools.policy ask, reading one line from stdin each time: never, each_round or on_split (default: modes.<mode>.checkpoint, never)")
}

// attachHost makes stdin the host of a headless command that takes
// --checkpoint, when the flag or the mode's configuration pauses: a
// command without the flag (ask, repl) never reads a checkpoint's answer
// from stdin, and neither does a run under never.
func attachHost(g *Flags, a *App, eng *debate.Engine) error {
	if !g.TakesCheckpoint || a.Door == "console" {
		return nil
	}
	var pol checkpoint.Policy
	if g.CheckpointSet {
		p, err := checkpoint.ParsePolicy(g.Checkpoint)
		if err != nil {
			return cli.Usage(fmt.Errorf("--checkpoint: %w", err))
		}
		pol = p
	}
	eng.SetHost(hostline.New(a.Stdin, a.Stderr), pol)
	if eng.CheckpointPolicy() == checkpoint.Never {
		eng.SetHost(nil, "") // a tool call under ask is refused, as without the flag
	}
	return nil
}
