package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

func init() {
	subcommands = append(subcommands, newTalkCmd)
}

func newTalkCmd(g *globalFlags) *cobra.Command {
	var (
		topic     string
		rounds    int
		a, b, mc  string
		changedRs bool
	)
	cmd := &cobra.Command{
		Use:   `talk --topic "..." [--rounds N]`,
		Short: "A moderated talk: two guests and an MC",
		Long: `Run a moderated talk, headless. The MC opens and introduces the topic; then
each round guest A speaks, guest B answers and the MC sums the round up; the
MC closes. Guests and MC come from modes.talk in the configuration and can
be swapped with --a, --b and --mc (agent names). Every turn is saved.

Ctrl+C asks "continue or stop?": stop lets the MC close the talk (a second
Ctrl+C cancels at once; what arrived is kept). Exit code 1 if any turn failed.`,
		Example: `  parley talk --topic "Is remote work here to stay?" --rounds 2
  parley talk --topic "tabs or spaces" --a claude --b gemini --mc chatgpt
  parley talk --json --topic "nuclear power" | jq -r 'select(.is_moderator) | .text'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			changedRs = cmd.Flags().Changed("rounds")
			if changedRs && rounds < 1 {
				return usageErr(fmt.Errorf("--rounds must be at least 1"))
			}
			topic = strings.TrimSpace(topic)
			if topic == "-" {
				data, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				topic = strings.TrimSpace(string(data))
			}
			if topic == "" {
				return usageErr(fmt.Errorf(`--topic is required, e.g. --topic "Is remote work here to stay?" (- reads it from stdin)`))
			}
			app, err := newApp(cmd, g, "talk", func(cfg *debate.Config) error {
				for _, set := range []struct {
					flag string
					val  string
					dst  *string
				}{{"a", a, &cfg.Modes.Talk.A}, {"b", b, &cfg.Modes.Talk.B}, {"mc", mc, &cfg.Modes.Talk.Moderator}} {
					if set.val == "" {
						continue
					}
					if _, ok := cfg.Agent(set.val); !ok {
						return fmt.Errorf("--%s: unknown agent %q (known: %s)", set.flag, set.val, strings.Join(cfg.AgentNames(), ", "))
					}
					*set.dst = set.val
				}
				if changedRs {
					cfg.Modes.Talk.Rounds = rounds
				}
				return nil
			})
			if err != nil {
				return err
			}
			defer app.Close()
			if err := app.requireKeys(); err != nil {
				return err
			}
			if app.engine.Current().Name() != "talk" { // a resumed session in another mode
				if err := app.engine.SetMode("talk"); err != nil {
					return err
				}
			}
			m, err := app.engine.Mode("talk")
			if err != nil {
				return err
			}
			talk := m.(*debate.Talk)
			tp := &talkPrinter{out: app.stdout, errOut: app.stderr, json: g.json, round: -1}
			app.engine.Subscribe(tp.Sink)

			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, os.Interrupt)
			defer signal.Stop(sigs)
			go handleTalkInterrupts(ctx, sigs, talk, cancel, func() bool { return askContinue(app.stdin) }, app.stderr)

			err = app.run(ctx, talk, topic)
			tp.summary()
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&topic, "topic", "", "what the talk is about (- reads it from stdin)")
	f.IntVar(&rounds, "rounds", 0, "rounds of A, B and the MC's summary (default: modes.talk.rounds)")
	f.StringVar(&a, "a", "", "agent name of guest A (default: modes.talk.a)")
	f.StringVar(&b, "b", "", "agent name of guest B (default: modes.talk.b)")
	f.StringVar(&mc, "mc", "", "agent name of the MC (default: modes.talk.moderator)")
	addSessionFlag(cmd, g)
	return cmd
}

// talkControl is what the interrupt handler needs of a talk.
type talkControl interface {
	Pause()
	Continue()
	Stop()
}

// handleTalkInterrupts turns Ctrl+C into a question: the talk pauses after
// the current turn while "continue or stop?" is asked; stop lets the MC
// close. A Ctrl+C while asking, or after stop, cancels at once.
func handleTalkInterrupts(ctx context.Context, sigs <-chan os.Signal, talk talkControl, cancel context.CancelFunc, ask func() bool, errOut io.Writer) {
	stopping := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-sigs:
		}
		if stopping {
			fmt.Fprintln(errOut, "\ncancelled: what arrived is kept")
			cancel()
			return
		}
		talk.Pause()
		fmt.Fprint(errOut, "\ncontinue or stop? [c/s] ")
		answer := make(chan bool, 1)
		go func() { answer <- ask() }()
		select {
		case <-ctx.Done():
			return
		case <-sigs:
			fmt.Fprintln(errOut, "\ncancelled: what arrived is kept")
			cancel()
			return
		case cont := <-answer:
			if cont {
				talk.Continue()
				continue
			}
			fmt.Fprintln(errOut, "stopping: the MC closes the talk (Ctrl+C again cancels)")
			stopping = true
			talk.Stop()
		}
	}
}

// askContinue reads the answer from a terminal on stdin; anything but a
// terminal (a pipe, a file) or a read error means stop.
func askContinue(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return false
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "c", "continue", "y", "yes", "":
		return true
	}
	return false
}

// talkPrinter prints each finished turn of a talk: "── round N ──" headers
// and "[Name]: text  (N tok)" as text, or one JSON object per turn.
type talkPrinter struct {
	mu     sync.Mutex
	out    io.Writer
	errOut io.Writer
	json   bool
	round  int // round of the last printed turn
	turns  int
	usage  providers.Usage
	cost   float64
}

// talkLine is one turn in --json output, in the shape of the store's log rows.
type talkLine struct {
	Turn        int     `json:"turn"`
	Round       int     `json:"round"`
	Speaker     string  `json:"speaker"`
	Display     string  `json:"display"`
	Model       string  `json:"model"`
	IsModerator bool    `json:"is_moderator"`
	Status      string  `json:"status"`
	Text        string  `json:"text"`
	Error       string  `json:"error,omitempty"`
	TokensIn    int     `json:"tokens_in"`
	TokensOut   int     `json:"tokens_out"`
	Cost        float64 `json:"cost_usd"`
}

func (p *talkPrinter) Sink(ev debate.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case debate.Retrying:
		fmt.Fprintln(p.errOut, retryLine(ev))
	case debate.TurnFinished:
		p.print(ev.Entry)
	}
}

func (p *talkPrinter) print(en debate.Entry) {
	p.turns++
	p.usage = p.usage.Add(en.Usage)
	p.cost += en.Cost
	if p.json {
		b, _ := json.Marshal(talkLine{Turn: en.Turn, Round: en.Round, Speaker: en.Speaker, Display: en.Display, Model: en.Model,
			IsModerator: en.IsModerator, Status: string(en.Status), Text: en.Text, Error: en.Error,
			TokensIn: en.Usage.InputTokens, TokensOut: en.Usage.OutputTokens, Cost: en.Cost})
		fmt.Fprintf(p.out, "%s\n", b)
		return
	}
	if en.Round > p.round {
		// A round's first turn is a guest's; a new round that starts with
		// the MC is the closing (the opening is round 0).
		switch {
		case en.Round == 0:
		case en.IsModerator:
			fmt.Fprintln(p.out, "── closing ──")
		default:
			fmt.Fprintf(p.out, "── round %d ──\n", en.Round)
		}
		p.round = en.Round
	}
	if en.Status == debate.StatusError {
		fmt.Fprintf(p.out, "[%s]: %s\n\n", en.Display, turnBody(en))
		return
	}
	fmt.Fprintf(p.out, "[%s]: %s  (%s tok)\n\n", en.Display, turnBody(en), thousands(en.Usage.Total()))
}

// summary prints the talk's totals on stderr.
func (p *talkPrinter) summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json || p.turns == 0 {
		return
	}
	fmt.Fprintln(p.errOut, totalsLine(p.turns, "turn", "turns", p.usage, p.cost))
}
