// Package debatetest holds what the tests of the engine and of every mode
// share: in-process and HTTP fake providers, an event log, configurations
// and engines built over a list of modes the caller gives (a mode's own
// tests list only it; the core's list debate/modes.All).
package debatetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers/demo"

	"github.com/parleyhq/parley/providers"
)

// SpineConfig is a small configuration with the seed's agent names.
func SpineConfig(known config.ModeList) *config.Config {
	cfg := &config.Config{ModeList: known,
		Providers: map[string]providers.Spec{"fake": {Type: "demo"}},
		Agents: []config.AgentSpec{
			{Name: "gemini", Display: "Gemini", Provider: "fake", Model: "gemini-3-flash-preview"},
			{Name: "chatgpt", Display: "ChatGPT", Provider: "fake", Model: "gpt-5"},
			{Name: "claude", Display: "Claude", Provider: "fake", Model: "claude-sonnet-4-6"},
		},
		Modes: config.ModesConfig{
			Mention:   config.MentionConfig{Agents: []string{"gemini", "chatgpt"}},
			Alternate: config.AlternateConfig{Agents: []string{"chatgpt", "claude"}},
			Talk:      config.TalkConfig{A: "gemini", B: "chatgpt", Moderator: "claude", Rounds: 1},
			Magi:      config.MagiConfig{Agents: []string{"gemini", "chatgpt", "claude"}},
			Agent:     config.AgentModeConfig{Agent: "claude", MaxSteps: 5},
		},
		Pricing: map[string]config.Price{"gpt-5": {Input: 1.25, Output: 10}},
	}
	return cfg
}

// NewSpineEngine builds an engine whose agents use the given fakes (by agent
// name; agents without one get an instant fake) and records every event.
func NewSpineEngine(known config.ModeList, fakes map[string]*Fake) (*debate.Engine, *EventLog) {
	cfg := SpineConfig(known)
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		f := fakes[spec.Name]
		if f == nil {
			f = &Fake{Agent: spec.Name}
			if fakes != nil {
				fakes[spec.Name] = f
			}
		}
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: f})
	}
	e, err := debate.NewEngine(cfg, agents, "mention")
	if err != nil {
		panic(err)
	}
	log := &EventLog{}
	e.Subscribe(log.Add)
	return e, log
}

// ModeConfig has the default pairings of alternate and talk, for the
// modes known.
func ModeConfig(known config.ModeList) *config.Config {
	return &config.Config{ModeList: known,
		Providers: map[string]providers.Spec{"fake": {Type: "demo"}},
		Agents: []config.AgentSpec{
			{Name: "gemini", Display: "Gemini", Provider: "fake", Model: "gemini-3-flash-preview", Persona: "You are Gemini. Be clear."},
			{Name: "chatgpt", Display: "ChatGPT", Provider: "fake", Model: "gpt-5", Persona: "You are ChatGPT. Be precise."},
			{Name: "claude", Display: "Claude", Provider: "fake", Model: "claude-sonnet-4-6", Persona: "You are Claude. Be candid."},
			{Name: "codex", Display: "Codex", Provider: "fake", Model: "gpt-5-codex", Persona: "You are Codex. Prefer code."},
			{Name: "mc", Display: "MC", Provider: "fake", Model: "claude-sonnet-4-6", Persona: mcPersona},
		},
		Modes: config.ModesConfig{
			Mention:   config.MentionConfig{Agents: []string{"gemini", "chatgpt"}},
			Alternate: config.AlternateConfig{Agents: []string{"codex", "claude"}},
			Talk:      config.TalkConfig{A: "chatgpt", B: "gemini", Moderator: "mc", Rounds: 2},
			Magi:      config.MagiConfig{Agents: []string{"gemini", "chatgpt", "claude"}},
			Agent:     config.AgentModeConfig{Agent: "claude"},
		},
	}
}

// mcPersona is config.yaml's MC persona: it names every phase, which the
// talk's instructions must outweigh for the demo provider.
const mcPersona = "You are the MC of a moderated talk. You open by introducing the topic and the two guests, summarise each round fairly in a few sentences (points made, agreements, open questions), and close with a balanced wrap-up. You never take sides."

// NewModeEngine builds an engine in mode whose agents use fakes sharing one
// call log; adjust may change the fakes (by agent name) before use.
func NewModeEngine(t testing.TB, cfg *config.Config, mode string, adjust func(map[string]*ModeFake)) (*debate.Engine, *CallLog, *EventLog) {
	t.Helper()
	log := &CallLog{}
	fakes := map[string]*ModeFake{}
	for _, s := range cfg.Agents {
		fakes[s.Name] = &ModeFake{Agent: s.Name, Log: log}
	}
	if adjust != nil {
		adjust(fakes)
	}
	var agents []*debate.Agent
	for _, s := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: s, Provider: fakes[s.Name]})
	}
	e, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		t.Fatal(err)
	}
	events := &EventLog{}
	e.Subscribe(events.Add)
	return e, log, events
}

// LastContent is the text of the request's last message.
func LastContent(req providers.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// AllContent is every message of the request, one "<role> text" line each.
func AllContent(req providers.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "<%s> %s\n", m.Role, m.Content)
	}
	return b.String()
}

// NewMixedEngine builds an engine in mode over cfg whose agents named in
// byAgent use those providers (e.g. the real adapters against HTTP fakes)
// and the rest the demo agents at no pace.
func NewMixedEngine(t testing.TB, cfg *config.Config, mode string, byAgent map[string]providers.Provider) *debate.Engine {
	t.Helper()
	var agents []*debate.Agent
	for _, s := range cfg.Agents {
		p, ok := byAgent[s.Name]
		if !ok {
			p = demo.NewWithPace("demo", 0)
		}
		agents = append(agents, &debate.Agent{AgentSpec: s, Provider: p})
	}
	e, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
