// Command parley is the terminal debate console for large language models.
// This package wires cobra commands and flags to the engine; nothing else.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers/demo"
)

// The exit codes and the errors that choose them live in package cli.
const (
	exitOK         = cli.ExitOK
	exitRuntime    = cli.ExitRuntime
	exitUsage      = cli.ExitUsage
	exitNoDecision = cli.ExitNoDecision
)

var (
	usageErr     = cli.Usage
	exitCode     = cli.ExitCode
	readQuestion = cli.ReadQuestion
)

func main() {
	os.Exit(run(context.Background(), invocation{args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, demoPace: demo.Pace, modes: modes.All()}))
}

// invocation is one run of the command line: its arguments, its streams,
// the pace of the demo agents (demo.Pace for users; tests that run whole
// commands in-process pass a faster one) and the modes it knows
// (modes.All; a test may add one).
type invocation struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	demoPace       time.Duration
	modes          debate.ModeList
}

// run runs the command line and returns the exit code.
func run(ctx context.Context, in invocation) int {
	// genai logs every failed stream ("Error unexpected EOF") through the
	// standard logger; Parley reports the failure itself, so such lines
	// would only repeat it out of place (and paint over the console).
	prevLog := log.Writer()
	log.SetOutput(io.Discard)
	defer log.SetOutput(prevLog)
	root := newRootCmd(in.demoPace, in.modes)
	root.SetArgs(in.args)
	root.SetIn(in.stdin)
	root.SetOut(in.stdout)
	root.SetErr(in.stderr)
	ctx, saves := wiring.WithSaveStatus(ctx)
	err := root.ExecuteContext(ctx)
	if err != nil {
		// Errors may quote a server's message: no escape reaches the terminal.
		fmt.Fprintln(root.ErrOrStderr(), "parley:", sanitize.Text(err.Error()))
	}
	if code := exitCode(err); code != 0 || saves.Err() == nil {
		return code
	}
	return cli.ExitRuntime // the session was not saved; that was said once
}

// subcommands are the commands beside root, every one listed here and
// nowhere else; each is built afresh, bound to this command line's flags.
func subcommands(g *globalFlags) []*cobra.Command {
	return []*cobra.Command{
		newAgentCmd(g),
		newAlternateCmd(g),
		newAskCmd(g),
		newBenchCmd(g),
		newConfigCmd(g),
		newCouncilCmd(g),
		newDBCmd(g),
		newDoctorCmd(g),
		newMagiCmd(g),
		newMCPCmd(g),
		newModelsCmd(g),
		newReplCmd(g),
		newServeCmd(g),
		newWebhooksCmd(g),
		newSessionsCmd(g),
		newTalkCmd(g),
		newVersionCmd(g),
	}
}

// newRootCmd builds the whole command tree; demoPace is the demo agents'
// delay between words, known the modes the program offers.
func newRootCmd(demoPace time.Duration, known debate.ModeList) *cobra.Command {
	g := &globalFlags{DemoPace: demoPace, Modes: known}
	var cpuProfile string
	root := &cobra.Command{
		Use:   "parley",
		Short: "A terminal round table for large language models",
		Long: `Parley hosts a debate between AI agents (OpenAI, Anthropic, Gemini, local
models) that share one conversation. Without a command it opens the
full-screen console; every mode also runs headless.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		// .env applies to every command, sessions included (PARLEY_DB).
		PersistentPreRunE: func(*cobra.Command, []string) error { return configload.LoadDotEnv() },
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.JSON {
				return usageErr(fmt.Errorf("--json has no meaning for the full-screen console: use it with a headless command (ask, repl, alternate, talk, magi, agent, council, sessions, config, version)"))
			}
			stop, err := startCPUProfile(cpuProfile)
			if err != nil {
				return err
			}
			defer stop()
			return runConsole(cmd, g)
		},
	}
	wrapArgs(root) // "parley foo" is a usage error too
	pf := root.PersistentFlags()
	pf.StringVar(&g.Config, "config", "", "configuration file (default: ./parley.yaml, then $XDG_CONFIG_HOME/parley/config.yaml, then the built-in one)")
	pf.StringVar(&g.DB, "db", "", "session database (default: $PARLEY_DB, then store.url, then $XDG_DATA_HOME/parley/parley.db)")
	pf.BoolVar(&g.Demo, "demo", false, "use the offline demo agents: no keys, no network")
	pf.BoolVar(&g.JSON, "json", false, "headless commands: print machine-readable JSON")
	pf.BoolVar(&g.JSONL, "jsonl", false, "headless commands: print every event as one JSON line as it happens")
	pf.StringVar(&g.Mode, "mode", "", "mode to start in: "+strings.Join(known.Names(), ", "))
	pf.BoolVar(&g.StrictSeats, "strict-seats", false, "refuse, naming the variables to set, instead of seating an agent without its key on another provider's model (seating: strict)")
	root.Flags().StringVar(&g.Resume, "resume", "", "resume the saved session with this ID (a unique prefix is enough)")
	root.Flags().BoolVar(&g.Continue, "continue", false, "resume the most recent session")
	addWaitFlag(root, g)
	addCostFlag(root, g)
	// Hidden: for whoever measures what the console costs.
	root.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write the console's CPU profile to this file (or set PARLEY_CPUPROFILE)")
	_ = root.Flags().MarkHidden("cpuprofile")
	for _, c := range subcommands(g) {
		wrapArgs(c)
		root.AddCommand(c)
	}
	root.SetHelpCommand(newHelpCmd(root))
	addCompletions(root, g)
	root.SetVersionTemplate(versionLine() + "\n") // --version says what `parley version` says
	return root
}

// wrapArgs makes argument-count errors usage errors (exit 2).
func wrapArgs(c *cobra.Command) {
	if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error { return usageErr(check(cmd, args)) }
	}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(plainFlagError(err)) })
}

// strconvInFlag is pflag's wording of a number flag it could not read:
// `invalid argument "many" for "--rounds" flag: strconv.ParseInt: parsing
// "many": invalid syntax`.
var strconvInFlag = regexp.MustCompile(`^(invalid argument "(?:[^"\\]|\\.)*" for "[^"]+" flag): strconv\.Parse(Int|Uint|Float)[^\n]*$`)

// plainFlagError words a number flag's refusal for a person (issue 43,
// item 12: "--rounds many" printed strconv.ParseInt's message).
func plainFlagError(err error) error {
	m := strconvInFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	what := "a whole number"
	if m[2] == "Float" {
		what = "a number"
	}
	return fmt.Errorf("%s: it must be %s", m[1], what)
}
