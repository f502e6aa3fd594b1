package config

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

// StandInOf returns the agent's seat when it stands in on another model.
func (s *Seating) StandInOf(name string) (Seat, bool) { return findSeat(s, name, false) }

// UnseatedOf returns the agent's seat when it has none.
func (s *Seating) UnseatedOf(name string) (Seat, bool) { return findSeat(s, name, true) }

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
	_, none := s.UnseatedOf(name)
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
		parts = append(parts, StandInLine(s.StandIns, s.Model))
	}
	if len(s.Unseated) > 0 {
		parts = append(parts, UnseatedLine(s.Unseated))
	}
	return strings.Join(parts, "; ")
}

// StandInLine: "BALTHASAR and CASPER run on gpt-6.1-sol: no
// ANTHROPIC_API_KEY, GEMINI_API_KEY".
func StandInLine(seats []Seat, model string) string {
	verb := "runs"
	if len(seats) > 1 {
		verb = "run"
	}
	return fmt.Sprintf("%s %s on %s: no %s", SeatNames(seats), verb, model, MissingVars(seats, ", "))
}

// UnseatedLine: "Gemini has no seat: set GEMINI_API_KEY".
func UnseatedLine(seats []Seat) string {
	verb := "has"
	if len(seats) > 1 {
		verb = "have"
	}
	return fmt.Sprintf("%s %s no seat: set %s", SeatNames(seats), verb, MissingVars(seats, " and "))
}

// SeatNames lists the agents' labels: "A", "A and B", "A, B and C".
func SeatNames(seats []Seat) string {
	names := make([]string, len(seats))
	for i, st := range seats {
		names[i] = st.Display
		if names[i] == "" {
			names[i] = st.Agent
		}
	}
	return JoinAnd(names)
}

// JoinAnd joins names as "A", "A and B", "A, B and C".
func JoinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// MissingVars names each provider's first key variable once, in order.
func MissingVars(seats []Seat, sep string) string {
	var vars []string
	for _, st := range seats {
		if len(st.KeyVars) > 0 && !slices.Contains(vars, st.KeyVars[0]) {
			vars = append(vars, st.KeyVars[0])
		}
	}
	return strings.Join(vars, sep)
}
