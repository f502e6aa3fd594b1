// Package agent is agent mode: one agent reads a code folder with the
// workspace tools (list_files, read_file) and answers.
package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/transcript"
)

// AgentMode is the code-reading agent: one agent answers each question by
// reading the workspace with list_file and read_file until it calls
// complete (the seed's CLI agent, SPEC §6 agent).
type AgentMode struct {
	engine debate.Session
	agent  *debate.Agent

	mu       sync.Mutex
	maxSteps int // 0: the configured limit
}

// Spec describes agent mode; debate/modes.All lists it.
type Spec struct{}

func (Spec) Info() config.ModeInfo {
	return config.ModeInfo{Name: debate.ModeAgent, Key: "alt+5", Title: "one agent reads the code folder with tools to answer",
		Input: "a question about the code in the workspace", Roles: []string{"reader"},
		Controls: []config.ControlKind{config.ControlSteps},
		Seats:    config.SeatRange{Min: 1, Max: 1}, ContextTokens: 16000,
		Hint:        "ask about the code in the working folder",
		Placeholder: "ask about the code in this folder · /help",
		Examples: []config.Example{
			{Line: "what does this project do?", Does: "the agent reads the folder and explains"},
			{Line: "where is the configuration loaded?", Does: "it lists and reads files as it goes"},
			{Line: "explain main.go", Does: "each tool call shows in its panel"},
		},
		Layout: config.Layout{PanelShare: 50, Folder: true, ToolSteps: true}}
}

func (Spec) New(e debate.Session) (debate.Mode, error) { return newAgentMode(e) }

func (Spec) Check(k *config.ConfigCheck) error {
	a := k.Config.Modes.Agent
	if err := k.Agent("modes.agent.agent", a.Agent); err != nil {
		return err
	}
	if a.MaxSteps < 0 {
		return k.Bad("modes.agent.max_steps", "must not be negative")
	}
	if a.MaxSteps > config.MaxSteps {
		return k.Bad("modes.agent.max_steps", "%d is over %d", a.MaxSteps, config.MaxSteps)
	}
	return nil
}

func (Spec) Budget(c *config.Config) float64               { return c.Modes.Agent.BudgetUSD }
func (Spec) Context(c *config.Config) config.ContextBudget { return c.Context.Agent }

// Seated is the agent that reads the workspace.
func (Spec) Seated(c *config.Config) []string { return []string{c.Modes.Agent.Agent} }

func (Spec) Seat(c *config.Config, names []string) { c.Modes.Agent.Agent = names[0] }

func newAgentMode(e debate.Session) (debate.Mode, error) {
	name := e.Configuration().Modes.Agent.Agent
	if name == "" {
		return nil, &config.ConfigError{File: e.Configuration().Source, Key: "modes.agent.agent", Problem: "missing: name the agent that reads code"}
	}
	agents, err := e.MustAgents(name)
	if err != nil {
		return nil, err
	}
	return &AgentMode{engine: e, agent: agents[0]}, nil
}

// Name implements Mode.
func (m *AgentMode) Name() string { return debate.ModeAgent }

// Agents implements Mode: the one agent that reads code.
func (m *AgentMode) Agents() []*debate.Agent { return []*debate.Agent{m.agent} }

// Control implements Controller: steps sets the most replies per question.
func (m *AgentMode) Control(c debate.Control) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maxSteps = c.N
	return nil
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
	first := e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: input}).Turn + 1
	m.mu.Lock()
	maxSteps := m.maxSteps
	m.mu.Unlock()
	if maxSteps == 0 {
		maxSteps = e.MaxSteps()
	}
	spec := debate.TurnSpec{
		Agent: m.agent, Kind: transcript.KindReply, Prompt: input,
		Instruction: agentInstruction(e.Workspace()),
		Messages:    e.PromptFor(ctx, debate.Prompt{Mode: "agent", Self: m.agent.Name}),
	}
	var en transcript.Entry
	var err error
	if m.native() {
		// Native calls inside one turn (nativetools.go): its call limit is
		// tools.max_tool_calls, and the answer is the turn's text.
		spec.Instruction = nativeInstruction(e.Workspace())
		en, err = e.Reserve(spec).Run(ctx)
	} else {
		en, err = e.NewToolLoop(spec, maxSteps, true).Run(ctx)
	}
	e.Emit(m.answered(first, en, err))
	return err
}

// native reports whether the reader calls the files tools natively: the
// run serves them so (--native-tools, or a --tools selection) and its
// model takes tools (not tools_api: none). Otherwise seed 002's XML
// protocol, the documented default.
func (m *AgentMode) native() bool {
	box := m.engine.NativeTools(m.agent)
	if box == nil {
		return false
	}
	for _, s := range box.Specs() {
		if s.Name == toolbox.ToolReadFile {
			return true
		}
	}
	return false
}

func nativeInstruction(root string) string {
	return fmt.Sprintf("The host asks about the code in the workspace folder %q. Answer by reading the code with your tools list_file and read_file: look at the layout first, read the files that matter, then answer grounded in what you read (name the files and functions). Do not guess about files you have not read.", filepath.Base(root))
}

// answered sums up the run from its entries (those from turn first on).
func (m *AgentMode) answered(first int, answer transcript.Entry, err error) debate.AgentAnswered {
	out := debate.AgentAnswered{Agent: m.agent.Name, Complete: err == nil, ToolCalls: []transcript.ToolCall{}}
	if err == nil {
		out.Answer = answer.Text
	} else {
		out.Error = err.Error()
	}
	h := m.engine.History()
	for turn := first; turn <= h.Len(); turn++ {
		en, _ := h.Get(turn)
		if en.Speaker != m.agent.Name {
			continue
		}
		switch {
		case en.IsAgentTurn():
			out.Steps++
			out.Usage = out.Usage.Add(en.Usage)
			out.Cost += en.Cost
		case en.Kind == transcript.KindToolCall:
			out.ToolCalls = append(out.ToolCalls, en.ToolCalls...)
		}
	}
	return out
}

func agentInstruction(root string) string {
	return fmt.Sprintf("The host asks about the code in the workspace folder %q. Answer by reading the code with the tools below: look at the layout first, read the files that matter, then call complete with an answer grounded in what you read (name the files and functions). Do not guess about files you have not read.", filepath.Base(root))
}
