package debate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/config"
)

// NoQuestionError refuses a line that addresses agents and asks nothing
// ("@all", "@gemini @claude"): it would be a paid call with no question.
// Refused before anything is kept or sent.
type NoQuestionError struct {
	Line string // the line as typed
}

func (e *NoQuestionError) Error() string {
	return fmt.Sprintf("%q asks no question: write it after the names (%s which queue is simpler?)", e.Line, e.Line)
}

// UnseatedError refuses a mode that needs agents without a seat, naming
// the variables that would seat them.
type UnseatedError struct {
	Mode  string
	Seats []config.Seat
	// Strict is true when stand-ins were refused by `seating: strict`.
	Strict bool
}

func (e *UnseatedError) Error() string {
	msg := e.Mode + ": " + config.UnseatedLine(e.Seats)
	if e.Strict {
		msg += " (seating: strict refuses stand-ins)"
	}
	return msg
}

// SeatsOf returns the unseated among agents.
func (e *Engine) SeatsOf(agents []*Agent) []config.Seat {
	var out []config.Seat
	for _, a := range agents {
		if st, ok := e.Config.Seats.UnseatedOf(a.Name); ok {
			out = append(out, st)
		}
	}
	return out
}

// SeatingLiner is a mode that says itself how its agents sit (mention:
// whom @all asks and whom it skips).
type SeatingLiner interface{ SeatingLine() string }

// SeatHolder is a mode that seats agents its panels do not show (the
// council's chairman sits apart from its members' panels).
type SeatHolder interface{ SeatedAgents() []*Agent }

// SeatingLine is the one line that says how mode's agents sit ("" when
// they all have their keys): who stands in on which model, or for
// mention whom @all asks and whom it skips.
func (e *Engine) SeatingLine(mode string) string {
	s := e.Config.Seats
	if s == nil || len(s.StandIns)+len(s.Unseated) == 0 {
		return ""
	}
	m, err := e.Mode(mode)
	if err != nil {
		return err.Error()
	}
	if l, ok := m.(SeatingLiner); ok {
		return l.SeatingLine()
	}
	agents := m.Agents()
	if s, ok := m.(SeatHolder); ok {
		agents = s.SeatedAgents()
	}
	var moved []config.Seat
	for _, a := range agents {
		if st, ok := s.StandInOf(a.Name); ok && !slices.ContainsFunc(moved, func(x config.Seat) bool { return x.Agent == st.Agent }) {
			moved = append(moved, st)
		}
	}
	if len(moved) == 0 {
		return ""
	}
	return config.StandInLine(moved, s.Model)
}

// AllLine says whom @all asks and whom it skips for want of a key.
func (e *Engine) AllLine() string {
	asked, skipped := e.AllSeated()
	if len(skipped) == 0 {
		return ""
	}
	labels := make([]string, len(asked))
	for i, a := range asked {
		labels[i] = a.Label()
	}
	if len(asked) == 0 {
		return fmt.Sprintf("@all asks nobody: %s %s no key (%s)", config.SeatNames(skipped), pluralHas(skipped), config.MissingVars(skipped, ", "))
	}
	return fmt.Sprintf("@all asks %s; skipped %s: no %s", config.JoinAnd(labels), config.SeatNames(skipped), config.MissingVars(skipped, ", "))
}

func pluralHas(seats []config.Seat) string {
	if len(seats) > 1 {
		return "have"
	}
	return "has"
}

// AllSeated splits @all's agents into those with their own key and the
// seats of those without.
func (e *Engine) AllSeated() (asked []*Agent, skipped []config.Seat) {
	s := e.Config.Seats
	for _, name := range e.Config.Modes.Mention.Agents {
		a, ok := e.Agent(name)
		if !ok {
			continue
		}
		st, moved := s.StandInOf(a.Name)
		if !moved {
			st, moved = s.UnseatedOf(a.Name)
		}
		if moved {
			skipped = append(skipped, st)
			continue
		}
		asked = append(asked, a)
	}
	return asked, skipped
}

// NoMajorityError is a council that cannot seat a majority of its
// members: it makes no call at all.
type NoMajorityError struct {
	Seated, Members int
	Unseated        []config.Seat
}

func (e *NoMajorityError) Error() string {
	return fmt.Sprintf("council: %d of %d members have a seat, and a council needs a majority: %s",
		e.Seated, e.Members, config.UnseatedLine(e.Unseated))
}

// NoKeyError refuses a mention of agents whose provider has no key: asked
// by name, an agent answers on its own model or not at all.
type NoKeyError struct {
	Seats []config.Seat
	Ask   []string // the agents that can answer now (Seating.Ready)
}

func (e *NoKeyError) Error() string {
	msg := fmt.Sprintf("%s %s no key: set %s", config.SeatNames(e.Seats), pluralHas(e.Seats), config.MissingVars(e.Seats, " and "))
	if len(e.Ask) > 0 {
		msg += " (or ask @" + strings.Join(e.Ask, ", @") + ")"
	}
	return msg
}

// namedWithoutKey refuses names of agents that do not sit on their own key.
func (e *Engine) namedWithoutKey(names []string) error {
	s := e.Config.Seats
	var seats []config.Seat
	for _, n := range names {
		st, ok := s.StandInOf(n)
		if !ok {
			st, ok = s.UnseatedOf(n)
		}
		if ok {
			seats = append(seats, st)
		}
	}
	if len(seats) == 0 {
		return nil
	}
	err := &NoKeyError{Seats: seats}
	for _, a := range e.agents {
		if slices.Contains(s.Ready, a.Name) {
			err.Ask = append(err.Ask, a.Name)
		}
	}
	return err
}
