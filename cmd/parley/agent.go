package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

func init() {
	subcommands = append(subcommands, newAgentCmd)
}

func newAgentCmd(g *globalFlags) *cobra.Command {
	var (
		dir   string
		agent string
		steps int
	)
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
--steps replies (modes.agent.max_steps, default 20). Use - to read the
question from stdin.`,
		Example: `  parley agent --demo "explain this repo"
  parley agent --dir ~/src/project "where is the HTTP server configured?"
  parley agent --agent codex --steps 30 "how does the cache expire entries?"
  parley agent --json "what does main.go do?" | jq -r 'select(.type=="summary").summary'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if steps < 0 {
				return usageErr(fmt.Errorf("--steps must not be negative"))
			}
			question, err := readQuestion(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			a, err := newApp(cmd, g, "agent", func(cfg *debate.Config) error {
				if agent != "" {
					if _, ok := cfg.Agent(agent); !ok {
						return fmt.Errorf("--agent: unknown agent %q (known: %s)", agent, strings.Join(cfg.AgentNames(), ", "))
					}
					cfg.Modes.Agent.Agent = agent
				}
				if steps > 0 {
					cfg.Modes.Agent.MaxSteps = steps
				}
				return nil
			})
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.requireKeys(); err != nil {
				return err
			}
			if dir != "" {
				if err := a.engine.SetWorkspace(dir); err != nil {
					return usageErr(fmt.Errorf("--dir: %w", err))
				}
			}
			if a.engine.Current().Name() != "agent" {
				if err := a.engine.SetMode("agent"); err != nil {
					return err
				}
			}
			m, err := a.engine.Mode("agent")
			if err != nil {
				return err
			}
			p := &agentPrinter{out: a.stdout, errOut: a.stderr, json: g.json, turns: map[int]debate.Entry{}}
			a.engine.Subscribe(p.Sink)
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			runErr := a.run(ctx, m, question)
			p.finish(m.(*debate.AgentMode), runErr)
			return runErr
		},
	}
	addSessionFlag(cmd, g)
	cmd.Flags().StringVar(&dir, "dir", "", "workspace root the agent may read (default: the current directory)")
	cmd.Flags().StringVar(&agent, "agent", "", "agent that reads the code (default: modes.agent.agent)")
	cmd.Flags().IntVar(&steps, "steps", 0, "most replies the agent may send (default: modes.agent.max_steps, else 20)")
	return cmd
}

// agentPrinter shows an agent run: one line per tool call on stderr as it
// finishes, retries and protocol slips there too, and the answer on
// stdout. As JSON it prints every event, then a "summary" object.
type agentPrinter struct {
	mu     sync.Mutex
	out    io.Writer
	errOut io.Writer
	json   bool
	calls  int
	turns  map[int]debate.Entry // finished model turns by number (a turn may finish twice)
}

func (p *agentPrinter) Sink(ev debate.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if tf, ok := ev.(debate.TurnFinished); ok {
		p.turns[tf.Entry.Turn] = tf.Entry
	}
	if ta, ok := ev.(debate.ToolActivity); ok && ta.Done {
		p.calls++
	}
	if p.json {
		if b, err := debate.MarshalEvent(ev); err == nil {
			fmt.Fprintf(p.out, "%s\n", b)
		}
		return
	}
	switch ev := ev.(type) {
	case debate.ToolActivity:
		if ev.Done {
			fmt.Fprintf(p.errOut, "  %s\n", sanitize(toolLine(ev.Call)))
		}
	case debate.EntryAdded:
		if en := ev.Entry; en.Kind == debate.KindToolResult && en.Error != "" {
			fmt.Fprintf(p.errOut, "  ! reply had no usable tool call (%s); asked to retry\n", sanitize(en.Error))
		}
	case debate.Retrying:
		fmt.Fprintln(p.errOut, retryLine(ev))
	}
}

// toolLine is one tool call on one line: the call and what came of it.
func toolLine(c debate.ToolCall) string {
	line := "→ " + c.Tool + " " + c.Parameters["path"]
	if c.Parameters["recursive"] == "true" {
		line += " (recursive)"
	}
	if c.Error != "" {
		return line + " — error: " + c.Error
	}
	head, _, _ := strings.Cut(c.Result, "\n")
	if i := strings.LastIndex(head, ": "); i >= 0 {
		return line + " — " + head[i+2:]
	}
	return line
}

// agentSummary is the last line of `parley agent --json`.
type agentSummary struct {
	Type      string          `json:"type"` // "summary"
	Agent     string          `json:"agent"`
	Status    string          `json:"status"` // ok or error
	Summary   string          `json:"summary"`
	Error     string          `json:"error,omitempty"`
	Steps     int             `json:"steps"`      // model replies
	ToolCalls int             `json:"tool_calls"` // list_file and read_file calls run
	Usage     providers.Usage `json:"usage"`
	Cost      float64         `json:"cost_usd"`
}

// finish prints the answer (or nothing, when the run failed: the error is
// printed by main) and the totals.
func (p *agentPrinter) finish(m *debate.AgentMode, runErr error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var usage providers.Usage
	var cost float64
	for _, en := range p.turns {
		usage = usage.Add(en.Usage)
		cost += en.Cost
	}
	answer := m.Answer()
	if p.json {
		out := agentSummary{Type: "summary", Agent: m.Agents()[0].Name, Status: "ok", Summary: answer.Text,
			Steps: len(p.turns), ToolCalls: p.calls, Usage: usage, Cost: cost}
		if runErr != nil {
			out.Status, out.Summary, out.Error = "error", "", runErr.Error()
		}
		b, _ := json.Marshal(out)
		fmt.Fprintf(p.out, "%s\n", b)
		return
	}
	if runErr == nil {
		fmt.Fprintf(p.out, "%s\n", strings.TrimSpace(sanitize(answer.Text)))
	}
	fmt.Fprintf(p.errOut, "— %d %s, %d tool %s, %s tokens (%s in, %s out), $%.4f\n",
		len(p.turns), plural(len(p.turns), "step", "steps"), p.calls, plural(p.calls, "call", "calls"),
		thousands(usage.Total()), thousands(usage.InputTokens), thousands(usage.OutputTokens), cost)
}
