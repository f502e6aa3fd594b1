package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/toolkit"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/store"
)

// drainTimeout bounds how long a finished run waits for its subscribers
// (the store above all) to take the last events.
const drainTimeout = 10 * time.Second

// run is one tool call's engine: recorded in the store, its events read by
// the printer (the readable text), the progress reporter and the tool's
// own capture.
type run struct {
	s       *Server
	eng     *debate.Engine
	rec     *store.Recorder
	unsub   []func()
	text    bytes.Buffer // written by the printer only
	printer *headless.Printer
}

// magiChoice is a MAGI preset and model (modes.magi.preset when empty):
// they change the MAGI members' providers in every mode, as on the CLI.
type magiChoice struct{ preset, model string }

// newRun builds a new session in mode from the server's configuration,
// changed by adjust.
func (s *Server) newRun(mode string, magi magiChoice, maxCost *float64, adjust ...func(*config.Config) error) (*run, error) {
	eng, err := s.engine(mode, magi, maxCost, adjust)
	if err != nil {
		return nil, err
	}
	return s.attach(eng, mode, nil)
}

// engine builds one run's engine from the server's configuration, under
// the call's cost cap.
func (s *Server) engine(mode string, magi magiChoice, maxCost *float64, adjust []func(*config.Config) error) (*debate.Engine, error) {
	if err := checkMaxCost(maxCost); err != nil {
		return nil, err
	}
	cfg := s.opts.Config.Clone()
	if err := cfg.ApplyMagi(magi.preset, "preset", magi.model); err != nil {
		return nil, err
	}
	for _, f := range adjust {
		if err := f(cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.BudgetUSD = s.limit(maxCost) // the engine's cap of the session: this call
	agents, err := s.opts.Agents(cfg)
	if err != nil {
		return nil, err
	}
	eng, err := debate.NewEngine(cfg, agents, mode)
	if err == nil && s.budget != nil {
		eng.Meter().Under(s.budget)
	}
	return eng, err
}

// loadRun restores saved session id into a new engine in mode.
func (s *Server) loadRun(ctx context.Context, id, mode string, maxCost *float64) (*run, error) {
	info, entries, err := s.opts.Store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	eng, err := s.engine(mode, magiChoice{}, maxCost, nil)
	if err != nil {
		return nil, err
	}
	if err := eng.Restore(info, entries); err != nil {
		return nil, err
	}
	return s.attach(eng, mode, &info)
}

// attach puts the engine in mode, subscribes the recorder and starts the
// session (resumed when restored is set).
func (s *Server) attach(eng *debate.Engine, mode string, restored *debate.SessionInfo) (*run, error) {
	if eng.Current().Name() != mode {
		if err := eng.SetMode(mode); err != nil {
			return nil, err
		}
	}
	r := &run{s: s, eng: eng, rec: s.opts.Store.Record()}
	s.runs.Add(1) // done in close
	var once sync.Once
	r.rec.OnError(func(err error) {
		once.Do(func() { s.logf("saving session %s: %v", eng.Info().ID, err) })
	})
	r.unsub = append(r.unsub, r.rec.Attach(eng, "mcp"),
		toolkit.Serve(eng, func(m string) { s.logf("session %s: %s", eng.Info().ID, m) }, s.opts.Getenv)) // serve.tools
	eng.Start(restored != nil)
	return r, nil
}

// print renders the run's events as the headless command of style would.
func (r *run) print(style headless.Style, header string) {
	// Retries are progress notifications; in the result they would read as
	// the outcome ("[local] retrying in 200ms…" above a failure).
	r.printer = headless.New(headless.Options{Out: &r.text, Err: &r.text, Format: headless.Text, Style: style, Header: header, QuietRetries: true, Modes: r.eng.Modes()})
	r.subscribe(r.printer.Sink)
}

func (r *run) subscribe(sink debate.Sink) { r.unsub = append(r.unsub, r.eng.Subscribe(sink)) }

// submit runs one exchange and waits until every subscriber has taken its
// events, so the result, the text and every progress notification are
// complete before the tool answers.
func (r *run) submit(ctx context.Context, input string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.s.life, cancel)() // the server closing or its client gone
	if err := r.underLimits(ctx); err != nil {
		return err
	}
	err := r.eng.Submit(ctx, input)
	r.drain()
	if r.printer != nil {
		r.printer.EndExchange(err)
		r.printer.EndRun()
	}
	return err
}

func (r *run) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	_ = r.eng.Wait(ctx)
}

// close ends the run: the subscribers take the last events and the
// recorder writes them; the session becomes a resource.
func (r *run) close() {
	defer r.s.runs.Done()
	r.eng.Cancel()
	r.drain()
	for _, u := range r.unsub {
		u()
	}
	if err := r.rec.Close(); err != nil {
		r.s.logf("saving session %s: %v", r.eng.Info().ID, err)
	}
	r.s.listSession(r.eng.Info())
}

// readable is the run's text as the headless command prints it, with what
// closes it (the outcome of a cancelled or failed run).
func (r *run) readable(ctx context.Context, runErr error) string {
	out := strings.TrimSpace(r.text.String())
	// Who stands in for an agent without its key (ask lists @all's skipped
	// agents in its notes).
	if mode := r.eng.Current().Name(); mode != debate.ModeMention {
		if line := r.eng.SeatingLine(mode); line != "" {
			out = clean(line) + "\n\n" + out
		}
	}
	switch {
	case ctx.Err() != nil:
		out += "\n\n(cancelled: what arrived is saved, marked cancelled)"
	case spend.IsCap(runErr):
		out += "\n\nstopped: " + clean(runErr.Error())
	case runErr != nil:
		out += "\n\nerror: " + sanitize.Text(runErr.Error())
	}
	return strings.TrimSpace(out) + fmt.Sprintf("\n\nsession %s (resource parley://sessions/%s)", r.eng.Info().ID, r.eng.Info().ID)
}

// runFor runs input with the readable text and progress reported, and
// returns the last T the run emitted: the tool's outcome.
func runFor[T debate.Event](ctx context.Context, req *mcp.CallToolRequest, r *run, style headless.Style, header, input string) (T, *mcp.CallToolResult, error) {
	var last headless.Last[T]
	r.subscribe(last.Sink)
	r.print(style, header)
	r.reportProgress(ctx, req)
	runErr := r.submit(ctx, input)
	got, ok := last.Get()
	if !ok {
		if isWindow(runErr) {
			return got, nil, runErr // refused before anything ran: the sentence is the tool error
		}
		if runErr == nil {
			runErr = errors.New("no error was reported")
		}
		return got, nil, fmt.Errorf("the run ended without its %s event: %w", got.EventType(), runErr)
	}
	res := textResult(r.readable(ctx, runErr))
	// A run that failed outright (every MAGI member, say) is a tool error,
	// so that a client does not take its text for an answer; a cancel or a
	// cap is an outcome the text states.
	// A spend window's refusal is a tool error: the client must wait.
	res.IsError = runErr != nil && ctx.Err() == nil && (!spend.IsCap(runErr) || isWindow(runErr))
	return got, res, nil
}

// textResult is a tool result whose readable text is text; the SDK adds
// the structured content.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
