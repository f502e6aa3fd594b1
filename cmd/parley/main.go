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
	"sync"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/startheap"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers/demo"
)

func main() {
	startheap.Raise(nil) // no collection before the heap's first 16 MB: a script's ask ends before it
	f := factory.System(demo.Pace, modes.All())
	f.Flags.DemoPace = demo.ParsePace(f.Getenv("PARLEY_DEMO_PACE"))
	store.LeaseTTL = store.ParseLeaseTTL(f.Getenv("PARLEY_LEASE_TTL")) // one value for the whole process
	os.Exit(run(context.Background(), f, os.Args[1:]))
}

// run runs the command line args with the factory f (its streams, its
// environment, the pace of the demo agents: demo.Pace for users, faster in
// tests that run whole commands in-process, and the modes it knows:
// modes.All, a test may add one) and returns the exit code.
func run(ctx context.Context, f *factory.Factory, args []string) int {
	// genai logs every failed stream ("Error unexpected EOF") through the
	// standard logger; Parley reports the failure itself, so such lines
	// would only repeat it out of place (and paint over the console).
	prevLog := log.Writer()
	log.SetOutput(io.Discard)
	defer log.SetOutput(prevLog)
	root := newRootCmd(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		// Errors may quote a server's message: no escape reaches the terminal.
		fmt.Fprintln(root.ErrOrStderr(), "parley:", sanitize.Text(err.Error()))
	}
	if code := cli.ExitCode(err); code != 0 || f.Saves.Err() == nil {
		return code
	}
	return cli.ExitRuntime // the session was not saved; that was said once
}

// subcommands are the commands beside root, every one listed here and
// nowhere else; each is built afresh on this command line's factory, with
// the run it does by default.
func subcommands(f *factory.Factory) []*cobra.Command {
	return []*cobra.Command{
		NewCmdAgent(f, nil),
		NewCmdAlternate(f, nil),
		NewCmdAsk(f, nil),
		NewCmdBench(f),
		NewCmdConfig(f),
		NewCmdCouncil(f, nil),
		NewCmdDB(f),
		NewCmdDoctor(f, nil),
		NewCmdMagi(f, nil),
		NewCmdMCP(f, nil),
		NewCmdModels(f),
		NewCmdRepl(f, nil),
		NewCmdServe(f, nil),
		NewCmdWebhooks(f),
		NewCmdSessions(f),
		NewCmdTalk(f, nil),
		NewCmdVersion(f, nil),
	}
}

// ConsoleOptions are the root command's own flags: the full-screen console.
type ConsoleOptions struct {
	F          *factory.Factory
	Ctx        context.Context
	Cmd        *cobra.Command // the root: the console's hint lists its commands
	CPUProfile string         // --cpuprofile (hidden)
}

// newRootCmd builds the whole command tree on the factory f; runF, when
// given, replaces the console's run.
func newRootCmd(f *factory.Factory) *cobra.Command { return NewCmdRoot(f, nil) }

// NewCmdRoot is the command tree: the console at its root (runF, when
// given, replaces its run) and every command of subcommands.
func NewCmdRoot(f *factory.Factory, runF func(*ConsoleOptions) error) *cobra.Command {
	g, known := f.Flags, f.Flags.Modes
	opts := &ConsoleOptions{F: f}
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
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return f.Bind(cmd) },
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx, opts.Cmd = cmd.Context(), cmd
			return runCmd(runF, consoleRun, opts)
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
	wiring.AddCostFlag(root, g)
	// Hidden: for whoever measures what the console costs.
	root.Flags().StringVar(&opts.CPUProfile, "cpuprofile", "", "write the console's CPU profile to this file (or set PARLEY_CPUPROFILE)")
	_ = root.Flags().MarkHidden("cpuprofile")
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	for _, c := range subcommands(f) {
		wrapArgs(c)
		root.AddCommand(c)
	}
	root.SetHelpCommand(NewCmdHelp(f, root, nil))
	addCompletions(root, f)
	root.SetVersionTemplate(versionLine() + "\n") // --version says what `parley version` says
	return root
}

// wrapArgs makes argument-count errors usage errors (exit 2).
func wrapArgs(c *cobra.Command) {
	if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error { return cli.Usage(check(cmd, args)) }
	}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cli.Usage(plainFlagError(err)) })
}

// strconvInFlag is pflag's wording of a number flag it could not read:
// `invalid argument "many" for "--rounds" flag: strconv.ParseInt: parsing
// "many": invalid syntax`.
var strconvInFlag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(invalid argument "(?:[^"\\]|\\.)*" for "[^"]+" flag): strconv\.Parse(Int|Uint|Float)[^\n]*$`)
})

// plainFlagError words a number flag's refusal for a person (issue 43,
// item 12: "--rounds many" printed strconv.ParseInt's message).
func plainFlagError(err error) error {
	m := strconvInFlag().FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	what := "a whole number"
	if m[2] == "Float" {
		what = "a number"
	}
	return fmt.Errorf("%s: it must be %s", m[1], what)
}
