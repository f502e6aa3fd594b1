package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
)

// AgentOptions are parley agent's flags and arguments (the shared flags are
// in F.Flags).
type AgentOptions struct {
	F     *factory.Factory
	Ctx   context.Context
	Args  []string // the question's words, or "-" for stdin
	Dir   string   // --dir
	Agent string   // --agent
	Steps int      // --steps
	Save  string   // --save
}

// NewCmdAgent is parley agent; runF, when given, replaces its run (agentRun).
func NewCmdAgent(f *factory.Factory, runF func(*AgentOptions) error) *cobra.Command {
	opts := &AgentOptions{F: f}
	cmd := &cobra.Command{
		Use:   `agent [--dir PATH] [--agent NAME] "question"`,
		Short: "A code-reading agent answers a question about a folder",
		Long: `One agent (modes.agent.agent, default claude) answers a question about the
code in a folder by reading it with three tools: list_file, read_file and
complete. Each tool call is shown on stderr as it happens; the answer goes to
stdout. Paths are confined to the folder (--dir, default the current
directory): "..", absolute paths and symlinks leading out are refused.
Nothing is written or run. Listings stop at 1,000 entries, files are cut at
256 KiB, binary files are refused. The loop stops at complete or after
--steps replies (modes.agent.max_steps, default 20), or early when the model
makes the same tool-protocol error three times in a row. The conversation,
tool calls included, is saved as JSON (--save FILE, default
agent-<session>.json beside the database). Use - to read the question from
stdin.`,
		Example: `  parley agent --demo "explain this repo"
  parley agent --dir ~/src/project "where is the HTTP server configured?"
  parley agent --agent codex --steps 30 "how does the cache expire entries?"
  parley agent --json "what does main.go do?" | jq -r 'select(.type=="summary").summary'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Args = cmd.Context(), args
			return runCmd(runF, agentRun, opts)
		},
	}
	addSessionFlag(cmd, f.Flags)
	wiring.AddCostFlag(cmd, f.Flags)
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "workspace root the agent may read (default: the current directory)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent that reads the code (default: modes.agent.agent)")
	cmd.Flags().StringVar(&opts.Save, "save", "", "write the conversation, tool calls included, as JSON to this file (default: agent-<session>.json beside the database)")
	cmd.Flags().IntVar(&opts.Steps, "steps", 0, "most replies the agent may send (default: modes.agent.max_steps, else 20)")
	return cmd
}

func agentRun(o *AgentOptions) error {
	if o.Steps < 0 || o.Steps > config.MaxSteps {
		return cli.Usage(fmt.Errorf("--steps must be 0 to %d", config.MaxSteps))
	}
	question, err := cli.ReadQuestion(o.Args, o.F.IO.In)
	if err != nil {
		return err
	}
	a, err := o.F.App(debate.ModeAgent, func(cfg *config.Config) error {
		if o.Agent != "" {
			if _, ok := cfg.Agent(o.Agent); !ok {
				return fmt.Errorf("--agent: unknown agent %q (known: %s)", o.Agent, strings.Join(cfg.AgentNames(), ", "))
			}
			cfg.Modes.Agent.Agent = o.Agent
		}
		if o.Steps > 0 {
			cfg.Modes.Agent.MaxSteps = o.Steps
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RequireKeys(); err != nil {
		return err
	}
	if dir := cmp.Or(o.Dir, o.F.Dir); dir != "" { // default: the working directory
		if err := a.Engine.SetWorkspace(o.F.Path(dir)); err != nil {
			return cli.Usage(fmt.Errorf("--dir: %w", err))
		}
	}
	if err := a.EnterMode(debate.ModeAgent); err != nil {
		return err
	}
	runErr := a.Run(o.Ctx, a.Printer(headless.Agent), question)
	if err := saveAgentConversation(o.F, a, o.Save); err != nil && runErr == nil {
		return err
	}
	return runErr
}

// saveAgentConversation writes the run's conversation in the seed's JSON
// shape to file, or beside the database, and says where on stderr.
func saveAgentConversation(f *factory.Factory, a *wiring.App, file string) error {
	info := a.Engine.Info()
	if file != "" {
		file = f.Path(file)
	} else {
		if a.Store == nil {
			return nil
		}
		db, err := f.DBPath()
		if err != nil {
			return err
		}
		if file, err = store.AgentJSONPath(db, info.ID); err != nil {
			return err
		}
	}
	// A resumed session holds only its newest turns: the rest is on disk.
	entries := a.Engine.History().Tail()
	if len(entries) > 0 && entries[0].Turn > 1 && a.Store != nil {
		older, err := a.Store.Page(context.Background(), info.ID, entries[0].Turn, entries[0].Turn)
		if err != nil {
			return err
		}
		entries = append(older, entries...)
	}
	if err := store.SaveAgentJSON(file, info, entries); err != nil {
		return err
	}
	fmt.Fprintf(a.Stderr, "conversation saved to %s\n", file)
	return nil
}
