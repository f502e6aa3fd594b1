package configload

import (
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/providers"
)

// The cost keys load from a user's file, dates written bare or quoted.
func TestCostKeysLoad(t *testing.T) {
	t.Parallel()
	path := writeFile(t, `budget_usd: 0.5
modes:
  magi:
    budget_usd: 0.2
agents:
  - name: claude
    effort: high
models:
  my-model:
    provider: openai
    input: 1.00
    output: 4.00
    prices: [{from: 2027-01-01, input: 2.00}]
    long_context: {above: 2000000, input: 2, output: 1.5}
    status: legacy
`)
	l, err := Load(modes.All(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.Config
	if cfg.BudgetUSD != 0.5 || cfg.ModeBudget("magi") != 0.2 {
		t.Errorf("budgets %v / %v", cfg.BudgetUSD, cfg.ModeBudget("magi"))
	}
	if a, _ := cfg.Agent("claude"); a.Effort != "high" {
		t.Errorf("effort %q", a.Effort)
	}
	u := providers.Usage{InputTokens: 1_000_000}
	before, _ := cfg.CostAt("my-model", u, time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC))
	after, _ := cfg.CostAt("my-model", u, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	if before != 1 || after != 2 {
		t.Errorf("my-model costs %v then %v, want 1 then 2", before, after)
	}
	if st := cfg.ModelInfo("my-model").StatusAt(time.Now()); st != "legacy" {
		t.Errorf("status %q", st)
	}
}

func TestCostKeysRefuseNonsense(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"agents:\n  - name: claude\n    effort: extreme\n": `.effort: "extreme" is not an effort level`,
		"budget_usd: -1\n":                                               "budget_usd: must not be negative",
		"modes:\n  talk:\n    budget_usd: -2\n":                          "modes.talk.budget_usd: must not be negative",
		"models:\n  m: {input: 1, prices: [{from: soon, input: 2}]}\n":   `models.m.prices[0].from: "soon" is not a date`,
		"models:\n  m: {input: 1, status: retired}\n":                    `models.m.status: "retired" is not a status`,
		"models:\n  m: {input: 1, long_context: {above: 0, input: 2}}\n": "models.m.long_context: needs above",
		"models:\n  m: {input: 1, shutdown: someday}\n":                  `models.m.shutdown: "someday" is not a date`,
		"models:\n  m: {input: -1}\n":                                    "models.m: prices must not be negative",
		"models:\n  m: {input: 1, efforts: [extreme]}\n":                 `models.m.efforts: "extreme" is not an effort level`,
		"pricing:\n  m: {input: 1, output: -3}\n":                        "pricing.m: prices must not be negative",
		"modes:\n  magi:\n    agents: [casper, nobody, melchior]\n":      `modes.magi.agents[1]: unknown agent "nobody"`,
	} {
		_, err := Load(modes.All(), writeFile(t, body), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
