package debate

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ControlKind names something a consumer may ask of a running or idle mode.
type ControlKind string

const (
	ControlPause    ControlKind = "pause"    // hold before the next turn
	ControlContinue ControlKind = "continue" // lift a pause
	ControlStop     ControlKind = "stop"     // end gracefully after the current turn
	ControlRounds   ControlKind = "rounds"   // rounds of the next exchange (N)
	ControlSteps    ControlKind = "steps"    // step limit of the next exchange (N)
)

// Control is one request to a mode, sent through Engine.Control.
type Control struct {
	Kind ControlKind `json:"kind"`
	N    int         `json:"n,omitempty"` // for rounds and steps
}

// ModeInfo is what a mode is, as data: every consumer (console tabs, keys,
// /mode completion, help, the CLI, the HTTP API) reads it here instead of
// knowing the modes.
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

	build func(*Engine) (Mode, error)
}

// Accepts reports whether the mode takes the control.
func (mi ModeInfo) Accepts(k ControlKind) bool { return slices.Contains(mi.Controls, k) }

// modeRegistry lists the modes in console-key order.
var modeRegistry []ModeInfo

// registerMode makes a mode known; each mode's file calls it from init.
// The registry keeps key order, so the files' init order does not matter.
func registerMode(info ModeInfo, build func(*Engine) (Mode, error)) {
	info.build = build
	modeRegistry = append(modeRegistry, info)
	slices.SortStableFunc(modeRegistry, func(a, b ModeInfo) int { return strings.Compare(a.Key, b.Key) })
	ModeNames = ModeNames[:0]
	for _, mi := range modeRegistry {
		ModeNames = append(ModeNames, mi.Name)
	}
}

// ModeNames lists the registered modes in console-key order.
var ModeNames []string

// Modes returns every registered mode in console-key order.
func Modes() []ModeInfo { return slices.Clone(modeRegistry) }

// LookupMode finds a registered mode by name.
func LookupMode(name string) (ModeInfo, bool) {
	for _, mi := range modeRegistry {
		if mi.Name == name {
			return mi, true
		}
	}
	return ModeInfo{}, false
}

// controller is implemented by modes that accept controls; the registry
// says which ones each accepts.
type controller interface {
	control(Control) error
}

// ErrNoSuchControl is returned for a control the current mode does not take.
type ErrNoSuchControl struct {
	Mode    string
	Control ControlKind
	Accepts []ControlKind
}

func (e *ErrNoSuchControl) Error() string {
	if len(e.Accepts) == 0 {
		return fmt.Sprintf("%s mode takes no controls (asked: %s)", e.Mode, e.Control)
	}
	names := make([]string, len(e.Accepts))
	for i, k := range e.Accepts {
		names[i] = string(k)
	}
	return fmt.Sprintf("%s mode does not take %s (it takes %s)", e.Mode, e.Control, strings.Join(names, ", "))
}

// Control sends c to the current mode. Pause, continue and stop act on the
// running exchange; rounds and steps set the next one's length.
func (e *Engine) Control(_ context.Context, c Control) error {
	m := e.Current()
	info, _ := LookupMode(m.Name())
	if !info.Accepts(c.Kind) {
		return &ErrNoSuchControl{Mode: m.Name(), Control: c.Kind, Accepts: info.Controls}
	}
	switch c.Kind {
	case ControlRounds, ControlSteps:
		if c.N < 1 {
			return fmt.Errorf("%s needs a number of at least 1", c.Kind)
		}
	case ControlPause, ControlContinue, ControlStop:
		if !e.Busy() {
			return fmt.Errorf("no %s is running: %s works while one runs", m.Name(), c.Kind)
		}
	}
	return m.(controller).control(c)
}
