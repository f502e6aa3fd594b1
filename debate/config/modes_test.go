package config

import "testing"

// budgetMode is the least a mode must be for the configuration: a name, a
// default prompt budget and its own context section.
type budgetMode struct {
	name   string
	own    ContextBudget
	tokens int
}

func (m budgetMode) Info() ModeInfo                { return ModeInfo{Name: m.name, ContextTokens: m.tokens} }
func (budgetMode) Check(*ConfigCheck) error        { return nil }
func (budgetMode) Budget(*Config) float64          { return 0 }
func (m budgetMode) Context(*Config) ContextBudget { return m.own }
func (budgetMode) Seat(*Config, []string)          {}
func (budgetMode) Seated(*Config) []string         { return nil }

// A mode's prompt budget is its own section, else context.budget_tokens,
// else the mode's default, else 12000; never under MinContextTokens; the
// summary part a quarter unless set to at most half.
func TestContextBudgetResolvesOwnThenSharedThenDefault(t *testing.T) {
	list := ModeList{
		budgetMode{name: "own", own: ContextBudget{BudgetTokens: 8000}, tokens: 20000},
		budgetMode{name: "byDefault", tokens: 20000},
		budgetMode{name: "none"},
		budgetMode{name: "tiny", own: ContextBudget{BudgetTokens: 10}},
		budgetMode{name: "halfSummary", own: ContextBudget{BudgetTokens: 8000, SummaryTokens: 4000}},
		budgetMode{name: "greedySummary", own: ContextBudget{BudgetTokens: 8000, SummaryTokens: 4001}},
	}
	for _, tc := range []struct {
		mode   string
		shared int
		want   Budget
	}{
		{"own", 6000, Budget{Total: 8000, Summary: 2000, Verbatim: 6000, Block: 3000}},
		{"byDefault", 6000, Budget{Total: 6000, Summary: 1500, Verbatim: 4500, Block: 2250}},
		{"byDefault", 0, Budget{Total: 20000, Summary: 5000, Verbatim: 15000, Block: 7500}},
		{"none", 0, Budget{Total: 12000, Summary: 3000, Verbatim: 9000, Block: 4500}},
		{"unknown", 0, Budget{Total: 12000, Summary: 3000, Verbatim: 9000, Block: 4500}},
		{"tiny", 0, Budget{Total: MinContextTokens, Summary: 250, Verbatim: 750, Block: 375}},
		{"halfSummary", 0, Budget{Total: 8000, Summary: 4000, Verbatim: 4000, Block: 2000}},
		{"greedySummary", 0, Budget{Total: 8000, Summary: 2000, Verbatim: 6000, Block: 3000}},
	} {
		c := &Config{ModeList: list}
		c.Context.BudgetTokens = tc.shared
		if got := c.ContextBudget(tc.mode); got != tc.want {
			t.Errorf("ContextBudget(%q) with context.budget_tokens %d = %+v, want %+v", tc.mode, tc.shared, got, tc.want)
		}
	}
}

// The list finds a mode by name, names them in order, and says which
// names there are when asked for another.
func TestModeListFindsByNameAndNamesTheOthers(t *testing.T) {
	list := ModeList{budgetMode{name: "a"}, budgetMode{name: "b"}}
	if s, ok := list.Spec("b"); !ok || s.Info().Name != "b" {
		t.Fatalf("Spec(b) = %v, %v", s, ok)
	}
	if _, ok := list.Spec("c"); ok {
		t.Fatal("Spec(c) found a mode")
	}
	if got := list.Default(); got != "a" {
		t.Fatalf("Default() = %q, want a", got)
	}
	if got, want := list.Unknown("c"), `unknown mode "c" (one of a, b)`; got != want {
		t.Fatalf("Unknown(c) = %q, want %q", got, want)
	}
	if got := (ModeList{}).Default(); got != "" {
		t.Fatalf("an empty list's Default() = %q", got)
	}
}
