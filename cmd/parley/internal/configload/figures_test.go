package configload

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// Break 1 and 4 of issue 42 through the configuration: NaN turned every
// cap off (every comparison with NaN is false) and a price of 1.7e308 made
// the next cost +Inf. Each figure is refused with the file, line and key.
func TestFiguresFromTheFileAreFiniteAndBounded(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"budget_usd: .nan\n":                                                            "parley.yaml:1: budget_usd: NaN is not a finite amount",
		"budget_usd: .inf\n":                                                            "budget_usd: +Inf is not a finite amount",
		"budget_usd: 1e9\n":                                                             "budget_usd: 1e+09 is over $100,000",
		"modes:\n  magi:\n    budget_usd: .nan\n":                                       "parley.yaml:3: modes.magi.budget_usd: NaN is not a finite amount",
		"models:\n  m: {input: 1.7e308}\n":                                              "models.m.input: 1.7e+308 is over $10,000 per 1M tokens",
		"models:\n  m: {input: 1, output: .nan}\n":                                      "models.m.output: NaN is not a finite price",
		"models:\n  m: {input: 1, output: -.inf}\n":                                     "models.m: prices must not be negative",
		"pricing:\n  m: {input: .inf, output: 1}\n":                                     "pricing.m.input: +Inf is not a finite price",
		"serve:\n  max_cost_per_hour: .nan\n":                                           "serve.max_cost_per_hour: a spend limit in USD, 0 (none) or more: NaN is not a finite amount",
		"agents:\n  - name: claude\n    temperature: .nan\n":                            "temperature: NaN is outside 0..2",
		"models:\n  m: {input: 1, prices: [{from: 2027-01-01, input: 1.7e308}]}\n":      "models.m.prices[0].input: 1.7e+308 is over",
		"models:\n  m: {input: 1, long_context: {above: 10, input: .nan, output: 1}}\n": "models.m.long_context: needs above",
	} {
		_, err := Load(modes.All(), writeFile(t, body), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

func TestFiguresFromTheEnvironmentAreFiniteAndBounded(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]string{
		"PARLEY_BUDGET_USD=NaN":               `environment variable PARLEY_BUDGET_USD="NaN" (budget_usd): NaN is not a finite amount`,
		"PARLEY_BUDGET_USD=Inf":               "+Inf is not a finite amount",
		"PARLEY_MODES_MAGI_BUDGET_USD=-Inf":   "PARLEY_MODES_MAGI_BUDGET_USD",
		"PARLEY_SERVE_MAX_COST_PER_DAY=1e300": "1e+300 is over $100,000",
		"PARLEY_BUDGET_USD=1e400":             "PARLEY_BUDGET_USD",
	} {
		_, err := Load(modes.All(), writeFile(t, "{}\n"), []string{env})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", env, err, want)
		}
	}
	if l, err := Load(modes.All(), writeFile(t, "{}\n"), []string{"PARLEY_BUDGET_USD=0.5"}); err != nil || l.Config.BudgetUSD != 0.5 {
		t.Errorf("PARLEY_BUDGET_USD=0.5: %v", err)
	}
}
