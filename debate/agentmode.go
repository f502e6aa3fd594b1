package debate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
)

// AgentMode is the code-reading agent: one agent answers each question by
// reading the workspace with list_file and read_file until it calls
// complete (the seed's CLI agent, SPEC §6 agent).
type AgentMode struct {
	engine *Engine
	agent  *Agent

	mu     sync.Mutex
	answer Entry
}

func init() { registerMode("agent", newAgentMode) }

func newAgentMode(e *Engine) (Mode, error) {
	name := e.Config.Modes.Agent.Agent
	if name == "" {
		return nil, &ConfigError{File: e.Config.Source, Key: "modes.agent.agent", Problem: "missing: name the agent that reads code"}
	}
	agents, err := e.MustAgents(name)
	if err != nil {
		return nil, err
	}
	return &AgentMode{engine: e, agent: agents[0]}, nil
}

// Name implements Mode.
func (m *AgentMode) Name() string { return "agent" }

// Agents implements Mode: the one agent that reads code.
func (m *AgentMode) Agents() []*Agent { return []*Agent{m.agent} }

// Answer is the entry holding the latest answer (Text is the summary); its
// Turn is 0 before any question was answered.
func (m *AgentMode) Answer() Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.answer
}

// Submit implements Mode: the question goes into the history, then the
// agent's tool loop runs until complete, the step limit, a provider
// failure or a cancel.
func (m *AgentMode) Submit(ctx context.Context, input string) error {
	e := m.engine
	input = strings.TrimSpace(input)
	if input == "" {
		return nil
	}
	e.SetTitle(input, "")
	e.AddEntry(Entry{Kind: KindUser, Speaker: SpeakerUser, Text: input})
	spec := TurnSpec{
		Agent: m.agent, Kind: KindReply, Prompt: input,
		Instruction: agentInstruction(e.Workspace()),
		Messages:    BuildMessages(e.History().Settled(), View{Self: m.agent.Name, BudgetTokens: e.Config.Context.BudgetTokens}),
	}
	en, err := e.newToolLoop(spec, e.MaxSteps(), true).run(ctx)
	if err == nil {
		m.mu.Lock()
		m.answer = en
		m.mu.Unlock()
	}
	return err
}

func agentInstruction(root string) string {
	return fmt.Sprintf("The host asks about the code in the workspace folder %q. Answer by reading the code with the tools below: look at the layout first, read the files that matter, then call complete with an answer grounded in what you read (name the files and functions). Do not guess about files you have not read.", filepath.Base(root))
}
