package config

import (
	"fmt"
	"slices"
	"strings"
)

// ModeSpec is a mode as the configuration knows it: what it is (ModeInfo:
// name, key, seats, console text, panel layout) and its configuration section
// (modes.<name>: validation, budget, prompt budget, seating from a list of
// agents). The core and every door know modes only through it.
type ModeSpec interface {
	Info() ModeInfo
	// Check validates the mode's section of the configuration.
	Check(chk *ConfigCheck) error
	// Budget is the mode's per-exchange cap (modes.<name>.budget_usd), 0: none.
	Budget(c *Config) float64
	// Context is the mode's own prompt budget (context.<name>), zero: none.
	Context(c *Config) ContextBudget
	// Seat makes names the mode's agents, in its seats' order; the caller
	// has checked their count against Info().Seats.
	Seat(c *Config, names []string)
	// Seated names the agents the mode seats with c, defaults resolved
	// (parley doctor marks the others as asked only by name).
	Seated(c *Config) []string
}

// ModeInfo is what a mode is, as data: every consumer (console tabs, keys,
// hints, welcome, /mode completion, help, the CLI, the HTTP API, the web
// page) reads it here instead of knowing the modes.
type ModeInfo struct {
	Name  string `json:"name"`
	Key   string `json:"key"`   // console key that switches to it, e.g. "alt+1"
	Title string `json:"title"` // one line for help and tabs
	// Input says what a line typed in this mode means, for help and welcome text.
	Input string `json:"input"`
	// Roles name the panels in order (the mode's Agents()); "" for modes
	// whose panels are whoever is addressed.
	Roles    []string      `json:"roles,omitempty"`
	Controls []ControlKind `json:"controls,omitempty"`

	// Seats is how many agents a list of agents (the API's agents field)
	// may name for the mode.
	Seats SeatRange `json:"-"`
	// ContextTokens is the mode's default prompt budget (0: 12000).
	ContextTokens int `json:"-"`

	// Hint says what typing does, on the console's status line.
	Hint string `json:"-"`
	// Placeholder is the empty input box's prompt ("": Input).
	Placeholder string `json:"-"`
	// Examples are the welcome screen's lines to try; "{first}" stands for
	// the first panel's agent.
	Examples []Example `json:"-"`
	// StepOnEmpty: Enter on an empty line runs the next step.
	StepOnEmpty bool `json:"-"`
	// RoutesNames: a line's leading @names choose who answers (mention, a
	// NameRouter); every other mode hands such a line to it (namedask.go).
	RoutesNames bool `json:"-"`
	// Layout says how its panels show.
	Layout Layout `json:"-"`
}

// SeatRange is the number of agents a mode seats.
type SeatRange struct{ Min, Max int } // Max 0: no limit

// Example is a line to try and what it does.
type Example struct{ Line, Does string }

// Layout is how a mode's panels show, in the console and on the web page.
type Layout struct {
	// PanelShare is the percent of the screen below the banner the panels
	// take (0: 45).
	PanelShare int
	// Folder: the panels name the workspace the mode reads.
	Folder bool
	// Board is the outcome board above the panels: BoardVotes (a verdict
	// banner and vote table) or BoardRanking (the chairman's answer and
	// the ranking); "" none.
	Board string
	// RankingRound is the round whose turns are rankings, kept out of the
	// members' panels (0: none).
	RankingRound int
	// ToolSteps: answers are tool loops, shown as tool lines, not streams.
	ToolSteps bool
}

// Outcome boards (Layout.Board).
const (
	BoardVotes   = "votes"
	BoardRanking = "ranking"
)

// Accepts reports whether the mode takes the control.
func (mi ModeInfo) Accepts(k ControlKind) bool { return slices.Contains(mi.Controls, k) }

// Prompt is the empty input box's prompt.
func (mi ModeInfo) Prompt() string {
	if mi.Placeholder != "" {
		return mi.Placeholder
	}
	return mi.Input + " · /help"
}

// ExamplesFor are the welcome's examples with first as the first agent.
func (mi ModeInfo) ExamplesFor(first string) []Example {
	if len(mi.Examples) == 0 {
		return []Example{{mi.Input, mi.Title}} // a mode that wrote none says what its input means
	}
	out := slices.Clone(mi.Examples)
	for i := range out {
		out[i].Line = strings.ReplaceAll(out[i].Line, "{first}", first)
	}
	return out
}

// ModeList is the modes a program knows, in console-key order. It is a
// value: the program lists its modes once (package debate/modes) and hands
// the list to the configuration (Config.ModeList), which the engine and
// every door read; nothing in the core names a mode.
type ModeList []ModeSpec

// Names lists the modes' names.
func (l ModeList) Names() []string {
	names := make([]string, len(l))
	for i, s := range l {
		names[i] = s.Info().Name
	}
	return names
}

// Infos returns every mode's info.
func (l ModeList) Infos() []ModeInfo {
	out := make([]ModeInfo, len(l))
	for i, s := range l {
		out[i] = s.Info()
	}
	return out
}

// Info finds a mode's info by name.
func (l ModeList) Info(name string) (ModeInfo, bool) {
	if s, ok := l.Spec(name); ok {
		return s.Info(), true
	}
	return ModeInfo{}, false
}

// Spec finds a mode's descriptor by name.
func (l ModeList) Spec(name string) (ModeSpec, bool) {
	for _, s := range l {
		if s.Info().Name == name {
			return s, true
		}
	}
	return nil, false
}

// Default is the first mode, where a session starts when nothing names one.
func (l ModeList) Default() string {
	if len(l) == 0 {
		return ""
	}
	return l[0].Info().Name
}

// Unknown is the error for a name no mode has.
func (l ModeList) Unknown(name string) string {
	return fmt.Sprintf("unknown mode %q (one of %s)", name, strings.Join(l.Names(), ", "))
}

// ModeAgents are the agents some mode of c seats, and the summariser. An
// agent outside it is only ever asked by name.
func (c *Config) ModeAgents() map[string]bool {
	used := map[string]bool{}
	for _, s := range c.ModeList {
		for _, n := range s.Seated(c) {
			used[n] = true
		}
	}
	if c.Context.Summarizer != "" {
		used[c.Context.Summarizer] = true
	}
	delete(used, "")
	return used
}

// ControlKind names something a consumer may ask of a running or idle mode.
type ControlKind string

const (
	ControlPause    ControlKind = "pause"    // hold before the next turn
	ControlContinue ControlKind = "continue" // lift a pause
	ControlStop     ControlKind = "stop"     // end gracefully after the current turn
	ControlRounds   ControlKind = "rounds"   // rounds of the next exchange (N)
	ControlSteps    ControlKind = "steps"    // step limit of the next exchange (N)
)

// ModeBudget is the per-exchange cap of a mode (modes.<mode>.budget_usd),
// 0 when none.
func (c *Config) ModeBudget(mode string) float64 {
	if s, ok := c.ModeList.Spec(mode); ok {
		return s.Budget(c)
	}
	return 0
}
