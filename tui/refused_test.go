package tui

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers/demo"
)

// Issue 43, item 7: a line the engine refuses with nothing kept stays in
// the input to be corrected (it was cleared for a keyless @name and a line
// that asks nothing); a line the engine takes leaves the input empty. One
// key (OpenAI's), every agent on the demo provider.
func TestARefusedLineStaysInTheInput(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Seat(func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "k"
		}
		return ""
	})
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", 0)})
	}
	e, err := debate.NewEngine(cfg, agents, "mention")
	if err != nil {
		t.Fatal(err)
	}
	tm := start(t, New(testOptions(e)), 100, 30)
	for _, c := range []struct{ line, status string }{
		{"@gemini hi", "Gemini has no key: set GEMINI_API_KEY (or ask @chatgpt, @codex"},
		{"@nobody hi", "unknown agent @nobody"},
		{"@chatgpt", "asks no question"},
	} {
		typeLine(tm, c.line)
		waitFor(t, tm, "the refusal of "+c.line, func(m *Model) bool { return idle(m) && m.statusErr && strings.Contains(m.status, c.status) })
		probe(t, tm, func(m *Model) {
			if got := m.in.Value(); got != c.line {
				t.Errorf("after the refusal of %q the input holds %q", c.line, got)
			}
			if n := m.engine.History().Len(); n != 0 {
				t.Errorf("the refusal of %q kept %d entries", c.line, n)
			}
		})
		probe(t, tm, func(m *Model) { m.in.SetValue("") })
	}
	typeLine(tm, "@chatgpt hi")
	waitFor(t, tm, "the answer", func(m *Model) bool { return idle(m) && m.tr.Len() == 2 })
	probe(t, tm, func(m *Model) {
		if got := m.in.Value(); got != "" || m.statusErr {
			t.Errorf("after a taken line the input holds %q (status %q)", got, m.status)
		}
	})
}
