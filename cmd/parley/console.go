package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/tui"
)

// runConsole opens the full-screen console on the engine.
func runConsole(cmd *cobra.Command, g *globalFlags) error {
	a, err := newApp(cmd, g, g.mode)
	if err != nil {
		return err
	}
	defer a.Close()
	opts := tui.Options{
		Engine:     a.engine,
		Context:    cmd.Context(),
		Sessions:   a.consoleSessions(),
		AgentNotes: missingKeys(a),
	}
	if a.noKeys && !g.demo {
		opts.Banner = "Offline demo agents: no API key is set. For real models export OPENAI_API_KEY, ANTHROPIC_API_KEY and/or GEMINI_API_KEY (or put them in .env) and restart."
	}
	m := tui.New(opts)
	defer m.Close()
	// The Gemini SDK reports cut streams through the standard logger; on the
	// console's screen that would be garbage, so it is silenced meanwhile.
	prev := log.Writer()
	log.SetOutput(io.Discard)
	defer log.SetOutput(prev)
	if err := needTerminal(); err != nil {
		return usageErr(err)
	}
	_, err = tea.NewProgram(m, tea.WithContext(cmd.Context())).Run()
	m.Close() // no one reads events any more: never let them block the engine
	// Let a cancelled exchange settle, so the store records how it ended
	// before it is closed.
	a.engine.Cancel()
	for deadline := time.Now().Add(3 * time.Second); a.engine.Busy() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if errors.Is(err, tea.ErrProgramKilled) && cmd.Context().Err() != nil {
		return nil
	}
	return err
}

// missingKeys notes, per agent, a key that is not set (only when some keys
// are set: with none, every agent runs the demo and the banner says so).
func missingKeys(a *app) map[string]string {
	notes := map[string]string{}
	if a.demo {
		return notes
	}
	for _, ag := range a.cfg.Agents {
		spec := a.cfg.Providers[ag.Provider]
		if spec.Type == "demo" || providers.HasKey(spec, os.Getenv) {
			continue
		}
		notes[ag.Name] = "no key: set " + strings.Join(providers.KeyVars(spec), " or ")
	}
	return notes
}

// consoleSessions adapts the session store to the console (nil: none open).
func (a *app) consoleSessions() tui.Sessions {
	if a.store == nil {
		return nil
	}
	return storeSessions{st: a.store}
}

// storeSessions is the console's view of the session database.
type storeSessions struct{ st *store.Store }

func (s storeSessions) List() ([]debate.SessionInfo, error) {
	sums, err := s.st.List(context.Background())
	if err != nil {
		return nil, err
	}
	out := make([]debate.SessionInfo, len(sums))
	for i, x := range sums {
		out[i] = debate.SessionInfo{ID: x.ID, Title: x.Title, Mode: x.Mode, Topic: x.Topic, Created: x.Created, Parent: x.Parent, ForkAt: x.ForkAt}
	}
	return out, nil
}

func (s storeSessions) Load(id string) (debate.SessionInfo, []debate.Entry, error) {
	return s.st.Load(context.Background(), id)
}

func (s storeSessions) Delete(id string) error { return s.st.Delete(context.Background(), id) }

// Fork copies the session up to turn at (0: all of it) and loads the copy.
func (s storeSessions) Fork(id string, at int) (debate.SessionInfo, []debate.Entry, error) {
	ctx := context.Background()
	if at == 0 {
		_, entries, err := s.st.Load(ctx, id)
		if err != nil {
			return debate.SessionInfo{}, nil, err
		}
		at = len(entries)
	}
	info, err := s.st.Fork(ctx, id, at)
	if err != nil {
		return debate.SessionInfo{}, nil, err
	}
	return s.st.Load(ctx, info.ID)
}

// Export writes parley-ID.md or parley-ID.json in the working directory.
func (s storeSessions) Export(id, format string) (string, error) {
	path, err := filepath.Abs(fmt.Sprintf("parley-%s.%s", id, format))
	if err != nil {
		return "", err
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := s.st.Export(context.Background(), f, id, format); err != nil {
		f.Close()
		_ = os.Remove(path)
		return "", err
	}
	return path, f.Close()
}

// needTerminal refuses to start the console without a terminal (a script,
// a pipe, CI) with a hint at the headless commands, instead of Bubble
// Tea's low-level TTY error.
func needTerminal() error {
	if runtime.GOOS == "windows" {
		return nil // the console opens CONIN$ there
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("the console needs a terminal (%v); in scripts use the headless commands: parley ask, repl, alternate, talk, magi, agent", errors.Unwrap(err))
	}
	return f.Close()
}
