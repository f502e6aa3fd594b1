package debate

import (
	"fmt"

	"strings"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Agent is a configured agent bound to its provider.
type Agent struct {
	config.AgentSpec
	Provider providers.Provider
}

// Label is the name shown in output: the display name, else the name.
func (a *Agent) Label() string {
	if a.Display != "" {
		return a.Display
	}
	return a.Name
}

// --- the session's agents ---------------------------------------------------

// Agents lists every configured agent in configuration order.
func (e *Engine) Agents() []*Agent { return e.agents }

// Agent finds an agent by name.
func (e *Engine) Agent(name string) (*Agent, bool) {
	for _, a := range e.agents {
		if a.Name == name {
			return a, true
		}
	}
	return nil, false
}

// MustAgents resolves names, failing on the first unknown one, and on
// agents without a seat (no key, and seating left them unseated).
func (e *Engine) MustAgents(names ...string) ([]*Agent, error) {
	out, err := e.Resolve(names)
	if err != nil {
		return nil, err
	}
	if seats := e.SeatsOf(out); len(seats) > 0 {
		return nil, &UnseatedError{Seats: seats, Strict: e.Config.Seats.Strict}
	}
	return out, nil
}

// Resolve finds the agents named, failing on the first unknown one.
func (e *Engine) Resolve(names []string) ([]*Agent, error) {
	out := make([]*Agent, 0, len(names))
	for _, n := range names {
		a, ok := e.Agent(n)
		if !ok {
			return nil, &UnknownAgentError{Name: n, Known: e.AgentNames()}
		}
		out = append(out, a)
	}
	return out, nil
}

// AgentNames lists every configured agent's name in configuration order.
func (e *Engine) AgentNames() []string {
	names := make([]string, len(e.agents))
	for i, a := range e.agents {
		names[i] = a.Name
	}
	return names
}

// UnknownAgentError refuses an @name that is not configured.
type UnknownAgentError struct {
	Name  string
	Known []string
}

func (e *UnknownAgentError) Error() string {
	return fmt.Sprintf("unknown agent @%s (known: %s)", e.Name, "@"+strings.Join(e.Known, ", @"))
}

// displayOf is the label an entry of speaker is shown under: the host,
// Parley, or the agent's label.
func (e *Engine) displayOf(speaker string) string {
	switch speaker {
	case transcript.SpeakerUser:
		return "You"
	case transcript.SpeakerSystem:
		return "Parley"
	}
	if a, ok := e.Agent(speaker); ok {
		return a.Label()
	}
	return speaker
}
