package council

import (
	"slices"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
)

// Seat seats the members in council order, then the chairman (the last name).
func (Spec) Seat(c *config.Config, names []string) {
	c.Modes.Council.Members, c.Modes.Council.Chairman = slices.Clone(names[:len(names)-1]), names[len(names)-1]
}

// ChairSeat is the speaker name of the chairman's turns: the chairman sits
// in a seat of its own, even when its model also answers as a member.
const ChairSeat = "chairman"

// seatedMembers resolves the council's members and keeps those with a
// seat; unless they are a majority, the council makes no call at all.
func seatedMembers(e debate.Session, names []string) ([]*debate.Agent, error) {
	all, err := e.Resolve(names)
	if err != nil {
		return nil, err
	}
	unseated := e.SeatsOf(all)
	if len(unseated) == 0 {
		return all, nil
	}
	seated := slices.DeleteFunc(slices.Clone(all), func(a *debate.Agent) bool { return !e.Configuration().Seats.Seated(a.Name) })
	if 2*len(seated) <= len(all) {
		return nil, &debate.NoMajorityError{Seated: len(seated), Members: len(all), Unseated: unseated}
	}
	return seated, nil
}

// DefaultCouncilMembers are the first configured agent on an openai, a
// gemini and an anthropic provider each (configuration order): one model
// per vendor. With fewer than two such agents (local models only), the
// first three agents sit.
func DefaultCouncilMembers(cfg *config.Config) []string {
	var out []string
	taken := map[string]bool{}
	for _, a := range cfg.Agents {
		typ := cfg.Providers[a.Provider].Type
		if (typ == "openai" || typ == "gemini" || typ == "anthropic") && !taken[typ] {
			taken[typ] = true
			out = append(out, a.Name)
		}
	}
	if len(out) < 2 {
		out = cfg.AgentNames()[:min(3, len(cfg.Agents))]
	}
	return out
}

// DefaultChairman is the strongest configured model, judged by its output
// price (pricing, else the model catalogue: vendors price their strongest
// models highest); ties, and models without a price, go to the first agent
// in configuration order.
func DefaultChairman(cfg *config.Config) string {
	best, bestPrice := "", -1.0
	for _, a := range cfg.Agents {
		if !cfg.Seats.Seated(a.Name) {
			continue
		}
		price := 0.0
		if p, ok := cfg.Pricing[a.Model]; ok {
			price = p.Output
		} else if out := cfg.ModelInfo(a.Model).Output; out != nil {
			price = *out
		}
		if price > bestPrice {
			best, bestPrice = a.Name, price
		}
	}
	return best
}

// chairSeat is the chairman: the chosen agent's provider and model in a
// seat of its own, with the chair's persona.
func chairSeat(e debate.Session, of *debate.Agent) *debate.Agent {
	if of.Name == ChairSeat {
		return of
	}
	spec := of.AgentSpec
	spec.Name, spec.Display, spec.Tools = ChairSeat, "Chairman", nil
	spec.Persona = chairPersona
	if _, taken := e.Agent(ChairSeat); taken {
		spec.Name = "council-" + ChairSeat
	}
	return &debate.Agent{AgentSpec: spec, Provider: of.Provider}
}

// Seated are the members (configured or by default) and the chairman.
func (Spec) Seated(c *config.Config) []string {
	members, chair := c.Modes.Council.Members, c.Modes.Council.Chairman
	if len(members) == 0 {
		members = DefaultCouncilMembers(c)
	}
	if chair == "" {
		chair = DefaultChairman(c)
	}
	return append(slices.Clone(members), chair)
}
