package debate

import (
	"context"
	"fmt"
	"strings"
)

// NameRouter is a mode whose lines are routed by the @names they start
// with (mention: ModeInfo.RoutesNames). In a mode that is not one, a line
// that starts with @names (not @all) is a named ask: Engine.Submit hands it
// to the session's name router, which asks those agents alone, exactly as
// mention mode would, and says so in one line (namedAskSentence); "@all …"
// runs the mode as usual. The same in every mode and every door, since
// every door submits through Engine.Submit (issue 43, item 4).
type NameRouter interface {
	Mode
	// Named returns the names a line's leading @names ask, nil when it does
	// not start with an @name or its leading names include @all. A name
	// no agent has is returned too: the router refuses it as it would.
	Named(line string) []string
	// SubmitNamed runs line as Submit does; once the line is accepted and
	// before any call it emits started and adds its sentence as a status
	// note (Carry keeps a Plan's Named so): a refused line says and saves nothing.
	SubmitNamed(ctx context.Context, line string, started NamedAskStarted) error
}

// NamedAskStarted is a named ask typed in a mode that routes no names,
// accepted: the exchange that follows is mention's, whatever the session's
// mode. The router adds the sentence as a status note just after; a door
// that shows exchanges in its mode's shape shows this one as mention's.
type NamedAskStarted struct {
	Mode     string   `json:"mode"`   // the mode the line was typed in
	Agents   []string `json:"agents"` // the agents asked
	Sentence string   `json:"sentence"`
}

// namedAskSentence is the one line that says a named ask in mode ran as
// mention mode would.
func namedAskSentence(displays []string, mode string) string {
	return fmt.Sprintf("Asked %s alone, as mention mode would: %s mode routes no names (@all … runs it).",
		strings.Join(displays, ", "), mode)
}

// namedAsk is an exchange of the name router that says so.
type namedAsk struct {
	NameRouter
	started NamedAskStarted
}

func (n namedAsk) Submit(ctx context.Context, line string) error {
	return n.SubmitNamed(ctx, line, n.started)
}

// namedAskOf returns, for a line typed in m, the name router's exchange
// that answers it, or nil when m routes names itself or the line is not a
// named ask.
func (e *Engine) namedAskOf(m Mode, line string) Mode {
	if _, routes := m.(NameRouter); routes {
		return nil
	}
	for _, info := range e.Config.ModeList.Infos() {
		if !info.RoutesNames {
			continue
		}
		built, err := e.modeNamed(info.Name)
		r, ok := built.(NameRouter)
		if err != nil || !ok {
			continue
		}
		names := r.Named(line)
		if len(names) == 0 {
			return nil
		}
		displays := make([]string, 0, len(names))
		for _, name := range names {
			if a, ok := e.Agent(name); ok {
				displays = append(displays, a.Label())
			} else {
				displays = append(displays, "@"+name)
			}
		}
		return namedAsk{NameRouter: r, started: NamedAskStarted{Mode: m.Name(), Agents: names, Sentence: namedAskSentence(displays, m.Name())}}
	}
	return nil
}
