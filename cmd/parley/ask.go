package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
)

func init() {
	subcommands = append(subcommands, newAskCmd)
}

func newAskCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   `ask "@agent question"`,
		Short: "One mention-routed exchange, headless",
		Long: `Ask one or more agents once and print their answers as "[Name]: text",
in configuration order; the first answer streams as it arrives. Address
agents with @name, several @names or @all. A line without a mention is saved
as a note. Use - to read the line from stdin.`,
		Example: `  parley ask "@all what is a monad?"
  parley ask "@claude @gemini compare Rust and Go for CLIs"
  echo "@chatgpt summarise this" | parley ask -
  parley ask --jsonl "@all hi" | jq -c 'select(.type=="turn_finished")'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			line, err := readQuestion(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			a, err := newApp(cmd, g, "mention")
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.RequireKeys(); err != nil {
				return err
			}
			if err := a.EnterMode("mention"); err != nil {
				return err
			}
			p := a.Printer(headless.Conversation)
			err = a.Run(cmd.Context(), p, line)
			if err == nil && a.Format() == headless.Text && p.Asked() == 0 {
				// Mention mode keeps such a line as a note, silently; one
				// ask that prints nothing deserves a word on stderr.
				fmt.Fprintf(a.Stderr, "no @mention: saved as a note, nobody was asked. Address agents with @all or @name (%s).\n",
					strings.Join(a.Cfg.AgentNames(), ", "))
			}
			return err
		},
	}
	addSessionFlag(cmd, g)
	addCostFlag(cmd, g)
	return cmd
}
