package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/selfcmd"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/tui"
)

// consoleRun opens the full-screen console on the engine.
func consoleRun(o *ConsoleOptions) error {
	g := o.F.Flags
	if g.JSON {
		return cli.Usage(fmt.Errorf("--json has no meaning for the full-screen console: use it with a headless command (ask, repl, alternate, talk, magi, agent, council, sessions, config, version)"))
	}
	stop, err := startCPUProfile(cmp.Or(o.CPUProfile, o.F.Getenv("PARLEY_CPUPROFILE")))
	if err != nil {
		return err
	}
	defer stop()
	a, err := o.F.App(g.Mode)
	if err != nil {
		return err
	}
	defer a.Close()
	opts := tui.Options{
		Engine:     a.Engine,
		Context:    o.Ctx,
		Sessions:   consoleSessions(a),
		AgentNotes: missingKeys(a),
		ConfigPath: configWhere(a.Cfg.Source, o.F.Getenv),
		// "" when sessions are not saved: the console says so.
		DatabasePath: a.DBFile,
		Resumed:      g.Resume != "" || g.Continue,
		Theme:        a.Cfg.Theme.Base,
		Colours:      a.Cfg.Theme.Colors,
		Keys:         a.Cfg.Keys,
	}
	if a.NoKeys && !g.Demo {
		opts.Banner = demoBanner
	}
	m := tui.New(opts)
	defer m.Close()
	// The Gemini SDK reports cut streams through the standard logger; on the
	// console's screen that would be garbage, so it is silenced meanwhile.
	prev := log.Writer()
	log.SetOutput(io.Discard)
	defer log.SetOutput(prev)
	if err := needTerminal(headlessCommands(o.Cmd)); err != nil {
		return cli.Usage(err)
	}
	// Bubble Tea ends on SIGTERM itself; SIGHUP (a closed terminal or ssh)
	// ends it the same way, so the exchange is cancelled, its text kept and
	// the session saved below.
	ctx, stopSignals := signal.NotifyContext(o.Ctx, syscall.SIGHUP)
	defer stopSignals()
	_, err = tea.NewProgram(m, append(tui.ProgramOptions(), tea.WithContext(ctx))...).Run()
	m.Close() // no one reads events any more: never let them block the engine
	// Let a cancelled exchange settle, so the store records how it ended
	// before it is closed.
	a.Engine.Cancel()
	settle, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = a.Engine.Wait(settle)
	sayHowToResume(a)
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// sayHowToResume prints, once the console is gone, the session's id and
// the command that opens it again (nothing for an empty or unsaved one).
func sayHowToResume(a *wiring.App) {
	if a.Store == nil || len(a.Engine.History().Tail()) == 0 {
		return
	}
	id := a.Engine.Info().ID
	fmt.Fprintf(a.Stdout, "session %s saved · resume it with: %s --resume %s\n", id, selfcmd.Name(), id)
}

// headlessCommands lists the commands beside the console, for the hint
// given where no terminal is.
func headlessCommands(cmd *cobra.Command) []string {
	names := []string{"ask", "repl"} // the console's own work, one line at a time
	for _, c := range cmd.Root().Commands() {
		if n := c.Name(); !slices.Contains(names, n) && n != "help" && n != "completion" && !c.Hidden {
			names = append(names, n)
		}
	}
	return names
}

// configWhere says, for the console's first screen, which configuration
// file is in use, or where the user's own would go.
func configWhere(source string, getenv func(string) string) string {
	if source != configload.EmbeddedSource {
		return source
	}
	if p := configload.UserPath(getenv); p != "" {
		return "built-in (yours: ./parley.yaml or " + p + ")"
	}
	return "built-in (yours: ./parley.yaml)"
}

// missingKeys notes, per agent without its key, where it sits instead (only
// when some keys are set: with none, every agent runs the demo and the
// banner says so).
func missingKeys(a *wiring.App) map[string]string {
	notes := map[string]string{}
	seats := a.Cfg.Seats
	if a.Demo || seats == nil {
		return notes
	}
	for _, st := range seats.StandIns {
		notes[st.Agent] = "on " + seats.Model + ": no " + strings.Join(st.KeyVars, " or ")
	}
	for _, st := range seats.Unseated {
		notes[st.Agent] = "no seat: set " + strings.Join(st.KeyVars, " or ")
	}
	return notes
}

// consoleSessions adapts the session store to the console (nil: none open).
func consoleSessions(a *wiring.App) tui.Sessions {
	if b := a.SessionBrowser(); b != nil {
		return b
	}
	return nil // a nil *store.Browser in the interface would not be nil
}

// needTerminal refuses to start the console without a terminal (a script,
// a pipe, CI) with a hint at the headless commands, instead of Bubble
// Tea's low-level TTY error.
func needTerminal(commands []string) error {
	if runtime.GOOS == "windows" {
		return nil // the console opens CONIN$ there
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("the console needs a terminal (%v); in scripts use the headless commands: parley %s", errors.Unwrap(err), strings.Join(commands, ", "))
	}
	return f.Close()
}

// demoBanner is the console's banner when no key is set. Short on purpose:
// two lines on a 60-column terminal.
const demoBanner = "Demo agents: no API key is set. Export OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or use .env)."

// startCPUProfile profiles the process into file (--cpuprofile, else
// PARLEY_CPUPROFILE; nothing when both are empty) until stop is called.
func startCPUProfile(file string) (stop func(), err error) {
	if file == "" {
		return func() {}, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
