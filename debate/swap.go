package debate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/checkpoint"
)

// Swap at a checkpoint: the host puts a configured agent that does not sit
// in the run in a member's seat for the rest of the run. The seat keeps its
// place and role (MAGI's member, talk's guest or MC, alternate's first or
// second); the agent behind it (its name, persona, provider and model)
// changes. Every mode that offers swap lists FreeAgents in its point and
// seats the agent SwapIn returns.

// FreeAgents are the agents that may take a seat at a checkpoint: every
// configured agent with a key (seating left it a seat) that does not sit
// in seated, in configuration order.
func FreeAgents(s Session, seated []*Agent) []string {
	var out []string
	for _, name := range s.AgentNames() {
		if slices.ContainsFunc(seated, func(a *Agent) bool { return a.Name == name }) {
			continue
		}
		if _, err := s.MustAgents(name); err != nil {
			continue // no key: it could not answer
		}
		out = append(out, name)
	}
	return out
}

// SwapIn is what a swap answer does to seated: the index of the seat a.Member
// holds and the agent taking it. It refuses an unknown member, an unknown
// agent or one without a key, and an agent already seated, each by name.
func SwapIn(s Session, seated []*Agent, a checkpoint.Answer) (int, *Agent, error) {
	seat := slices.IndexFunc(seated, func(x *Agent) bool { return x.Name == a.Member })
	if seat < 0 {
		names := make([]string, len(seated))
		for i, x := range seated {
			names[i] = x.Name
		}
		return 0, nil, fmt.Errorf("swap: no member %q (the members: %s)", a.Member, strings.Join(names, ", "))
	}
	if slices.ContainsFunc(seated, func(x *Agent) bool { return x.Name == a.With }) {
		return 0, nil, fmt.Errorf("swap: %s already sits in this run", a.With)
	}
	in, err := s.MustAgents(a.With)
	if err != nil {
		return 0, nil, fmt.Errorf("swap: %w", err)
	}
	return seat, in[0], nil
}
