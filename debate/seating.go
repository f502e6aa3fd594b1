package debate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/providers"
)

// Seating values (the configuration's `seating` key).
const (
	// seatingStandIn (the default, also ""): an agent whose provider has no
	// key sits on the first keyed provider's default model, persona kept.
	seatingStandIn = "stand-in"
	// SeatingStrict: such an agent stays unseated, and a mode that needs it
	// refuses to start, naming the variables to set.
	SeatingStrict = "strict"
)

// seatingValues lists what `seating` may say.
var seatingValues = []string{seatingStandIn, SeatingStrict}

// Seating is how the configured agents sit given the keys that are set:
// who stands in on another provider's model, and who has no seat at all.
type Seating struct {
	// Provider and Model are where stand-ins run: the first keyed
	// provider (in agent order) and the model of its first agent, its
	// default. Both "" when no provider has a key.
	Provider, Model string
	StandIns        []Seat // moved onto Provider/Model, configuration order
	Unseated        []Seat // no seat: strict seating, or nowhere to stand in
	Strict          bool
	// Ready are the agents known to answer now, configuration order: on
	// their own provider with its key, or a demo. A keyless server (a local
	// Ollama or OpenAI-compatible host) is not among them: nothing says it
	// is running, so no hint sends a user to it.
	Ready []string
}

// Seat is one agent that lost its own provider for want of a key.
type Seat struct {
	Agent    string   `json:"agent"`
	Display  string   `json:"display"`
	Provider string   `json:"provider"` // the configured provider entry
	Model    string   `json:"model"`    // the configured model
	KeyVars  []string `json:"key_vars"` // the variables that would seat it (any one)
}

// Seat seats every agent by the keys getenv sees. An agent whose provider
// needs a key it does not have is moved onto the first keyed provider's
// default model (its persona, name and colour stay), unless seating is
// strict or no provider has a key: then it is unseated, and a mode that
// needs it refuses (Engine.MustAgents). Call it once, after the flags
// changed the configuration (magi -m) and before the agents are built.
func (c *Config) Seat(getenv func(string) string) *Seating {
	s := &Seating{Strict: c.Seating == SeatingStrict}
	for _, a := range c.Agents {
		if spec := c.Providers[a.Provider]; needsKey(spec) && providers.HasKey(spec, getenv) {
			s.Provider, s.Model = a.Provider, a.Model
			break
		}
	}
	for i := range c.Agents {
		a := &c.Agents[i]
		spec := c.Providers[a.Provider]
		if spec.Type == "demo" || needsKey(spec) && providers.HasKey(spec, getenv) {
			s.Ready = append(s.Ready, a.Name)
		}
		if !needsKey(spec) || providers.HasKey(spec, getenv) {
			continue
		}
		seat := Seat{Agent: a.Name, Display: a.Display, Provider: a.Provider, Model: a.Model, KeyVars: providers.KeyVars(spec)}
		if s.Strict || s.Provider == "" {
			s.Unseated = append(s.Unseated, seat)
			continue
		}
		s.StandIns = append(s.StandIns, seat)
		a.Provider, a.Model = s.Provider, s.Model
	}
	c.Seats = s
	return s
}

// needsKey reports whether a provider entry authenticates with a key
// (demo and keyless openai-compatible servers do not).
func needsKey(spec providers.Spec) bool {
	return spec.Type != "demo" && len(providers.KeyVars(spec)) > 0
}

// standIn returns the agent's seat when it stands in on another model.
func (s *Seating) standIn(name string) (Seat, bool) { return findSeat(s, name, false) }

// unseated returns the agent's seat when it has none.
func (s *Seating) unseated(name string) (Seat, bool) { return findSeat(s, name, true) }

func findSeat(s *Seating, name string, unseated bool) (Seat, bool) {
	if s == nil {
		return Seat{}, false
	}
	list := s.StandIns
	if unseated {
		list = s.Unseated
	}
	i := slices.IndexFunc(list, func(st Seat) bool { return st.Agent == name })
	if i < 0 {
		return Seat{}, false
	}
	return list[i], true
}

// Seated reports whether the agent has a seat: its own, or a stand-in's
// (true for every agent when nothing was seated).
func (s *Seating) Seated(name string) bool {
	_, none := s.unseated(name)
	return !none
}

// Summary is the one line for the whole configuration (serve's start):
// who stands in on which model and why, or who has no seat. "" when every
// agent has its key.
func (s *Seating) Summary() string {
	if s == nil {
		return ""
	}
	var parts []string
	if len(s.StandIns) > 0 {
		parts = append(parts, standInLine(s.StandIns, s.Model))
	}
	if len(s.Unseated) > 0 {
		parts = append(parts, unseatedLine(s.Unseated))
	}
	return strings.Join(parts, "; ")
}

// standInLine: "BALTHASAR and CASPER run on gpt-6.1-sol: no
// ANTHROPIC_API_KEY, GEMINI_API_KEY".
func standInLine(seats []Seat, model string) string {
	verb := "runs"
	if len(seats) > 1 {
		verb = "run"
	}
	return fmt.Sprintf("%s %s on %s: no %s", seatNames(seats), verb, model, missingVars(seats, ", "))
}

// unseatedLine: "Gemini has no seat: set GEMINI_API_KEY".
func unseatedLine(seats []Seat) string {
	verb := "has"
	if len(seats) > 1 {
		verb = "have"
	}
	return fmt.Sprintf("%s %s no seat: set %s", seatNames(seats), verb, missingVars(seats, " and "))
}

// seatNames lists the agents' labels: "A", "A and B", "A, B and C".
func seatNames(seats []Seat) string {
	names := make([]string, len(seats))
	for i, st := range seats {
		names[i] = st.Display
		if names[i] == "" {
			names[i] = st.Agent
		}
	}
	return joinAnd(names)
}

func joinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// missingVars names each provider's first key variable once, in order.
func missingVars(seats []Seat, sep string) string {
	var vars []string
	for _, st := range seats {
		if len(st.KeyVars) > 0 && !slices.Contains(vars, st.KeyVars[0]) {
			vars = append(vars, st.KeyVars[0])
		}
	}
	return strings.Join(vars, sep)
}

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
	Seats []Seat
	// Strict is true when stand-ins were refused by `seating: strict`.
	Strict bool
}

func (e *UnseatedError) Error() string {
	msg := e.Mode + ": " + unseatedLine(e.Seats)
	if e.Strict {
		msg += " (seating: strict refuses stand-ins)"
	}
	return msg
}

// SeatsOf returns the unseated among agents.
func (e *Engine) SeatsOf(agents []*Agent) []Seat {
	var out []Seat
	for _, a := range agents {
		if st, ok := e.Config.Seats.unseated(a.Name); ok {
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
	var moved []Seat
	for _, a := range agents {
		if st, ok := s.standIn(a.Name); ok && !slices.ContainsFunc(moved, func(x Seat) bool { return x.Agent == st.Agent }) {
			moved = append(moved, st)
		}
	}
	if len(moved) == 0 {
		return ""
	}
	return standInLine(moved, s.Model)
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
		return fmt.Sprintf("@all asks nobody: %s %s no key (%s)", seatNames(skipped), pluralHas(skipped), missingVars(skipped, ", "))
	}
	return fmt.Sprintf("@all asks %s; skipped %s: no %s", joinAnd(labels), seatNames(skipped), missingVars(skipped, ", "))
}

func pluralHas(seats []Seat) string {
	if len(seats) > 1 {
		return "have"
	}
	return "has"
}

// AllSeated splits @all's agents into those with their own key and the
// seats of those without.
func (e *Engine) AllSeated() (asked []*Agent, skipped []Seat) {
	s := e.Config.Seats
	for _, name := range e.Config.Modes.Mention.Agents {
		a, ok := e.Agent(name)
		if !ok {
			continue
		}
		st, moved := s.standIn(a.Name)
		if !moved {
			st, moved = s.unseated(a.Name)
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
	Unseated        []Seat
}

func (e *NoMajorityError) Error() string {
	return fmt.Sprintf("council: %d of %d members have a seat, and a council needs a majority: %s",
		e.Seated, e.Members, unseatedLine(e.Unseated))
}

// NoKeyError refuses a mention of agents whose provider has no key: asked
// by name, an agent answers on its own model or not at all.
type NoKeyError struct {
	Seats []Seat
	Ask   []string // the agents that can answer now (Seating.Ready)
}

func (e *NoKeyError) Error() string {
	msg := fmt.Sprintf("%s %s no key: set %s", seatNames(e.Seats), pluralHas(e.Seats), missingVars(e.Seats, " and "))
	if len(e.Ask) > 0 {
		msg += " (or ask @" + strings.Join(e.Ask, ", @") + ")"
	}
	return msg
}

// NamedWithoutKey refuses names of agents that do not sit on their own key.
func (e *Engine) NamedWithoutKey(names []string) error {
	s := e.Config.Seats
	var seats []Seat
	for _, n := range names {
		st, ok := s.standIn(n)
		if !ok {
			st, ok = s.unseated(n)
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
