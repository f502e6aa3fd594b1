package debate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

// vendorConfig is modeConfig on three keyed vendors, each key in its own
// variable.
func vendorConfig() *config.Config {
	cfg := ModeConfig(known)
	cfg.Providers = map[string]providers.Spec{
		"openai":    {Type: "openai", APIKeyEnv: "TEST_OA"},
		"anthropic": {Type: "anthropic", APIKeyEnv: "TEST_AN"},
		"gemini":    {Type: "gemini", APIKeyEnv: "TEST_GE"},
	}
	vendor := map[string]string{"gemini": "gemini", "chatgpt": "openai", "claude": "anthropic", "codex": "openai", "mc": "anthropic"}
	for i := range cfg.Agents {
		cfg.Agents[i].Provider = vendor[cfg.Agents[i].Name]
	}
	return cfg
}

func onlyKey(name string) func(string) string {
	return func(k string) string {
		if k == name {
			return "key"
		}
		return ""
	}
}

func TestSeatStandsInOnTheFirstKeyedProvidersModel(t *testing.T) {
	t.Parallel()
	cfg := vendorConfig()
	s := cfg.Seat(onlyKey("TEST_OA"))
	if s.Provider != "openai" || s.Model != "gpt-5" { // chatgpt is the first agent on openai
		t.Fatalf("stand-ins sit on %s/%s, want openai/gpt-5", s.Provider, s.Model)
	}
	for _, name := range []string{"gemini", "claude", "mc"} {
		a, _ := cfg.Agent(name)
		if a.Provider != "openai" || a.Model != "gpt-5" || !strings.Contains(a.Persona, "You are") {
			t.Errorf("%s sits on %s/%s", name, a.Provider, a.Model)
		}
	}
	if codex, _ := cfg.Agent("codex"); codex.Model != "gpt-5-codex" {
		t.Errorf("an agent with its key moved: %+v", codex)
	}
	e, _, _ := NewModeEngine(t, cfg, "mention", nil)
	for mode, want := range map[string]string{
		"mention":   "@all asks ChatGPT; skipped Gemini: no TEST_GE",
		"alternate": "Claude runs on gpt-5: no TEST_AN",
		"talk":      "Gemini and MC run on gpt-5: no TEST_GE, TEST_AN",
		"magi":      "Gemini and Claude run on gpt-5: no TEST_GE, TEST_AN",
		"agent":     "Claude runs on gpt-5: no TEST_AN",
	} {
		if got := e.SeatingLine(mode); got != want {
			t.Errorf("%s: %q, want %q", mode, got, want)
		}
	}
}

func TestAllAsksOnlyKeyedAgentsAndNamesTheSkippedOnce(t *testing.T) {
	t.Parallel()
	cfg := vendorConfig()
	cfg.Seat(onlyKey("TEST_OA"))
	e, calls, _ := NewModeEngine(t, cfg, "mention", nil)
	for range 2 {
		if err := e.Submit(context.Background(), "@all kafka or nats?"); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(calls.Order(), ","); got != "chatgpt,chatgpt" {
		t.Errorf("calls %q, want chatgpt twice", got)
	}
	var notes []string
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindNote {
			notes = append(notes, en.Text)
		}
	}
	if len(notes) != 1 || notes[0] != "@all asks ChatGPT; skipped Gemini: no TEST_GE" {
		t.Errorf("notes %q: the skipped agent should be named once", notes)
	}
	err := e.Submit(context.Background(), "@gemini @chatgpt hi")
	var nk *NoKeyError
	if !errors.As(err, &nk) || !strings.Contains(err.Error(), "Gemini has no key: set TEST_GE (or ask @chatgpt, @codex)") {
		t.Errorf("naming a keyless agent: %v", err)
	}
}

func TestStrictSeatingRefusesTheModeThatNeedsTheAgent(t *testing.T) {
	t.Parallel()
	cfg := vendorConfig()
	cfg.Seating = config.SeatingStrict
	cfg.Seat(onlyKey("TEST_OA"))
	if a, _ := cfg.Agent("claude"); a.Provider != "anthropic" {
		t.Fatalf("strict seating moved claude to %s", a.Provider)
	}
	e, _, _ := NewModeEngine(t, cfg, "mention", nil)
	err := e.SetMode("alternate")
	var us *UnseatedError
	if !errors.As(err, &us) || err.Error() != "alternate: Claude has no seat: set TEST_AN (seating: strict refuses stand-ins)" {
		t.Errorf("alternate under strict seating: %v", err)
	}
}

func TestNoKeyedProviderLeavesAgentsUnseated(t *testing.T) {
	t.Parallel()
	cfg := vendorConfig()
	s := cfg.Seat(onlyKey("NOTHING"))
	if s.Provider != "" || len(s.StandIns) != 0 || len(s.Unseated) != len(cfg.Agents) {
		t.Errorf("seating without any key: %+v", s)
	}
}

func TestCouncilNeedsAMajorityOfSeatedMembers(t *testing.T) {
	t.Parallel()
	cfg := vendorConfig()
	cfg.Seating = config.SeatingStrict
	cfg.Modes.Council = config.CouncilConfig{Members: []string{"gemini", "chatgpt", "claude"}, Chairman: "codex"}
	cfg.Seat(onlyKey("TEST_OA"))
	e, calls, _ := NewModeEngine(t, cfg, "mention", nil)
	err := e.SetMode("council")
	var nm *NoMajorityError
	if !errors.As(err, &nm) || !strings.Contains(err.Error(), "1 of 3 members have a seat") {
		t.Fatalf("council with one seated member of three: %v", err)
	}
	if strings.Join(calls.Order(), ",") != "" {
		t.Errorf("calls %q", strings.Join(calls.Order(), ","))
	}
	// Two of three is a majority: the council sits without the third.
	cfg2 := vendorConfig()
	cfg2.Seating = config.SeatingStrict
	cfg2.Modes.Council = config.CouncilConfig{Members: []string{"gemini", "chatgpt", "codex"}, Chairman: "codex"}
	cfg2.Seat(onlyKey("TEST_OA"))
	e2, _, _ := NewModeEngine(t, cfg2, "council", nil)
	var names []string
	for _, a := range e2.Current().Agents() {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "chatgpt,codex,chairman" {
		t.Errorf("council seats %s", got)
	}
}
