package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers/demo"
)

// Params are what defines a run; they are stored with it, so --resume
// asks the same questions of the same council.
type Params struct {
	Set       string   `json:"set"`
	N         int      `json:"n"`
	Seed      uint64   `json:"seed"`
	Members   []string `json:"members"`
	Preset    string   `json:"preset,omitempty"`
	Rounds    int      `json:"rounds"`
	EarlyStop bool     `json:"early_stop,omitempty"`
	Anonymous bool     `json:"anonymous,omitempty"`
	Shuffle   bool     `json:"shuffle,omitempty"`
	Adaptive  bool     `json:"adaptive,omitempty"`
	Guard     bool     `json:"guard,omitempty"`
	Demo      bool     `json:"demo,omitempty"`
	// Data is the GSM8K file named with --data ("" : $PARLEY_GSM8K, then
	// the installed copy).
	Data string `json:"data,omitempty"`
	// SameModel and SelfConsistency name the agent (or model) of the
	// homogeneous council and of self-consistency ("" : not run).
	SameModel       string `json:"same_model,omitempty"`
	SelfConsistency string `json:"self_consistency,omitempty"`
	// Tools is --tools: each question is also asked of the council with
	// these tools ("" : not run), a paired condition.
	Tools string `json:"tools,omitempty"`
	// AdaptiveMargin is the margin the run's adaptive council was replayed
	// at (modes.magi.adaptive_margin when it started), so bench show and
	// compare measure it again alike whatever the configuration is then.
	AdaptiveMargin float64 `json:"adaptive_margin,omitempty"`
	// Total and Simulation are what the run found when it started: the
	// set's size and the simulation's label (bench show reads them).
	Total      int    `json:"total,omitempty"`
	Simulation string `json:"simulation,omitempty"`
}

// LoadParams reads a stored run's parameters (for --resume, before the
// council is configured from them); id is the run's full ID.
func LoadParams(ctx context.Context, st *store.Store, prefix string) (id string, p Params, err error) {
	id, raw, err := st.BenchRun(ctx, prefix)
	if err != nil {
		return "", Params{}, err
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", Params{}, fmt.Errorf("bench run %s: stored parameters: %w", id, err)
	}
	return id, p, nil
}

// Job is one invocation of parley bench.
type Job struct {
	Params Params
	Run    string // the run to resume; "" starts a new one
	Store  *store.Store
	Config *config.Config // members in Modes.Magi.Agents
	Agents []*debate.Agent
	// Workers and MaxCost may change between a run and its resumption.
	Workers int
	MaxCost float64
	// Err gets skipped lines and progress; TTY draws a bar there.
	Err io.Writer
	TTY bool
	// Getenv finds the GSM8K file ($PARLEY_GSM8K, $XDG_DATA_HOME); nil: an
	// empty environment.
	Getenv func(string) string
	// Items, when set, gets every item as it finishes (--jsonl), the
	// items stored before a resumption first.
	Items *ItemStream
	// Tools gives the with-tools council's members their tools (Params.Tools).
	Tools func(*debate.Agent) *toolbox.Box
}

// Execute loads the set, runs the questions not yet done and measures
// every stored result of the run.
func (j Job) Execute(ctx context.Context) (Report, error) {
	p := j.Params
	qs, bad, simulation, err := j.load()
	if err != nil {
		return Report{}, err
	}
	agents := j.Agents
	if simulation != "" {
		agents = Simulate(agents, p.Members, qs, p.Seed)
		if p.Tools != "" {
			// Said where the report says SIMULATION: the tools condition
			// there measures the wiring, not the tools.
			simulation += " Simulated members call no tools: the tools: conditions repeat the council's answers."
		}
		fmt.Fprintf(j.Err, "parley: %s\n", simulation)
	}
	for _, b := range bad {
		fmt.Fprintf(j.Err, "parley: %s:%d: %s (skipped)\n", sanitize.Text(p.Set), b.Line, sanitize.Text(b.Problem))
	}
	if len(qs) == 0 {
		return Report{}, fmt.Errorf("%s: no usable question", p.Set)
	}
	run := j.Run
	var stored []Result
	if p.AdaptiveMargin == 0 { // a new run, or one stored before the margin was
		p.AdaptiveMargin = j.Config.Modes.Magi.AdaptiveMargin
		if p.AdaptiveMargin == 0 {
			p.AdaptiveMargin = verdict.DefaultAdaptiveMargin
		}
	}
	margin := p.AdaptiveMargin
	if run == "" {
		run = debate.NewSessionID()
		p.Total, p.Simulation = len(qs), simulation
		raw, _ := json.Marshal(p)
		if err := j.Store.CreateBenchRun(ctx, run, raw); err != nil {
			return Report{}, fmt.Errorf("bench database: %w", err)
		}
		fmt.Fprintf(j.Err, "parley: bench run %s: %d questions of %s (go on after an interruption with --resume %s)\n", run, len(qs), sanitize.Text(p.Set), run)
	} else {
		rows, err := j.Store.BenchResults(ctx, run)
		if err != nil {
			return Report{}, fmt.Errorf("bench database: %w", err)
		}
		for _, row := range rows {
			var r Result
			if err := json.Unmarshal(row.Result, &r); err != nil {
				return Report{}, fmt.Errorf("bench run %s, question %s: %w", run, row.QuestionID, err)
			}
			stored = append(stored, r)
		}
		fmt.Fprintf(j.Err, "parley: resuming bench run %s: %d of %d questions already done\n", run, len(stored), len(qs))
	}
	done := map[string]bool{}
	for _, r := range stored {
		done[r.ID] = true
		if j.Items != nil {
			if err := j.Items.Write(ItemOf(r, p.Rounds, margin)); err != nil {
				return Report{}, err
			}
		}
	}
	sameModel, err := agentFor(agents, p.SameModel, "--same-model")
	if err != nil {
		return Report{}, err
	}
	selfConsistency, err := agentFor(agents, p.SelfConsistency, "--self-consistency")
	if err != nil {
		return Report{}, err
	}
	final := "majority_r1"
	if p.Rounds > 1 {
		final = fmt.Sprintf("verdict_r%d", p.Rounds)
	}
	bar := &ProgressPrinter{W: j.Err, TTY: j.TTY, Final: final}
	setup := Setup{Config: j.Config, Agents: agents, Rounds: p.Rounds, Workers: j.Workers, EarlyStop: p.EarlyStop,
		Anonymous: p.Anonymous, Shuffle: p.Shuffle, Adaptive: p.Adaptive, Guard: p.Guard, MaxCost: j.MaxCost, Progress: bar.Show,
		SameModel: sameModel, SelfConsistency: selfConsistency, Tools: j.Tools,
		Save: func(r Result) error {
			raw, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := j.Store.SaveBenchResult(context.WithoutCancel(ctx), run, r.ID, r.Seq, raw); err != nil {
				return err
			}
			if j.Items != nil {
				return j.Items.Write(ItemOf(r, p.Rounds, margin))
			}
			return nil
		}}
	out, err := Run(ctx, setup, qs, done)
	bar.End()
	all := append(stored, out.Results...)
	p.Total, p.Simulation = len(qs), simulation
	rep := Summarise(run, p, all, margin)
	rep.Skipped, rep.Stopped = len(bad), out.Stopped
	if out.Duration.Seconds() > 0 && len(out.Results) == len(all) {
		rep.WallSeconds = out.Duration.Seconds() // questions ran in parallel: the run's own clock
	}
	if rep.Partial && rep.Stopped != "" {
		fmt.Fprintf(j.Err, "parley: bench stopped (%s): %d of %d questions scored; go on with --resume %s\n", rep.Stopped, rep.Questions, rep.Total, run)
	}
	return rep, err
}

// Summarise measures a run's stored results under its parameters.
func Summarise(run string, p Params, results []Result, margin float64) Report {
	rep := MeasureWith(results, p.Members, p.Rounds, margin)
	rep.Run, rep.Set, rep.Total, rep.Simulation = run, p.Set, max(p.Total, len(results)), p.Simulation
	rep.Partial = rep.Questions < rep.Total
	for _, r := range results {
		rep.WallSeconds += float64(r.WallMS) / 1000
	}
	return rep
}

// agentFor finds the agent a baseline flag names: an agent's name, else
// the first agent on that model; nil for "".
func agentFor(agents []*debate.Agent, name, flag string) (*debate.Agent, error) {
	if name == "" {
		return nil, nil
	}
	for _, a := range agents {
		if a.Name == name {
			return a, nil
		}
	}
	var names []string
	for _, a := range agents {
		if a.Model == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return nil, fmt.Errorf("%s %s: no agent of that name or model (agents: %s)", flag, sanitize.Text(name), strings.Join(names, ", "))
}

// load reads the run's questions. builtin:gsm8k reads the installed test
// set and samples --n of it by --seed; under --demo its members are
// simulated (simulation says so), on generated problems when the test set is
// not installed.
func (j Job) load() (qs []Question, bad []LineError, simulation string, err error) {
	p := j.Params
	if p.Set != BuiltinGSM8K {
		qs, bad, err = Load(p.Set, p.N, p.Seed)
		if p.Demo && err == nil && strings.EqualFold(filepath.Ext(p.Set), ".csv") {
			simulation = describeSimSet(p.Set) // a knowledge set: simulated members who know its answers
		}
		return qs, bad, simulation, err
	}
	getenv := j.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	all, bad, _, err := LoadGSM8K(p.Data, getenv)
	var missing *MissingGSM8KError
	switch {
	case p.Demo && errors.As(err, &missing):
		return GSM8KStyle(p.N, p.Seed), nil, describeSim(true), nil
	case err != nil:
		return nil, nil, "", err
	}
	if p.Demo {
		simulation = describeSim(false)
	}
	return SampleQuestions(all, p.N, p.Seed), bad, simulation, nil
}

// IsTerminal reports whether f is a terminal (a character device).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// IsTerminalWriter reports whether w is a terminal (the progress bar's
// choice between redrawing one line and printing plain lines).
func IsTerminalWriter(w any) bool {
	f, ok := w.(*os.File)
	return ok && IsTerminal(f)
}

// ChooseMembers makes p's members the council (three agents), or takes
// the configured council when p names none.
func ChooseMembers(cfg *config.Config, p *Params) error {
	if len(p.Members) == 0 {
		p.Members = append([]string(nil), cfg.Modes.Magi.Agents...)
		return nil
	}
	for i := range p.Members {
		p.Members[i] = strings.TrimSpace(p.Members[i])
	}
	if len(p.Members) != 3 {
		return fmt.Errorf("--members needs three agents, got %d", len(p.Members))
	}
	cfg.Modes.Magi.Agents = p.Members
	return nil
}

// InstantDemo gives every agent a demo provider that answers at once: a
// demo bench takes seconds.
func InstantDemo(agents []*debate.Agent) []*debate.Agent {
	out := make([]*debate.Agent, len(agents))
	for i, a := range agents {
		b := *a
		b.Provider = demo.NewWithPace("demo", 0)
		out[i] = &b
	}
	return out
}

// WriteHTMLFile writes the HTML report to path.
func WriteHTMLFile(path string, rep Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteHTML(f, rep); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
