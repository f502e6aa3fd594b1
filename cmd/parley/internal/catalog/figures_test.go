package catalog

import (
	"os"
	"strings"
	"testing"
)

// Break 4 of issue 42: a price of 1.7e308 was taken, and the next call
// cost +Inf, which poisoned the database. Every price and token limit of
// an answer goes through package figures; the kept file stays as it was.
func TestUpdateRefusesAbsurdFigures(t *testing.T) {
	f, url := serve(t)
	if _, err := update(t, url, "2026-11-26"); err != nil {
		t.Fatal(err)
	}
	path, _ := Path(os.Getenv)
	before, _ := os.ReadFile(path)
	for name, c := range map[string]struct {
		breakIt func(f *fakeCatwalk)
		want    string
	}{
		"huge price": {func(f *fakeCatwalk) { f.providers[1].Models[0].CostPer1MIn = 1.7e308 },
			`catalogue entry "anthropic/claude-haiku-5-5" input price: 1.7e+308 is over $10,000 per 1M tokens`},
		"price just over": {func(f *fakeCatwalk) { f.providers[0].Models[0].CostPer1MOutCached = 10_000.01 },
			`"openai/gpt-6.1-sol" cached input price: 10000.01 is over`},
		"huge context": {func(f *fakeCatwalk) { f.providers[2].Models[0].ContextWindow = 1 << 62 },
			`"gemini/gemini-4-argon" context window: 4611686018427387904 is over 100000000`},
		"negative limit": {func(f *fakeCatwalk) { f.providers[0].Models[0].DefaultMaxTokens = -1 },
			"default max tokens: -1 is negative"},
	} {
		t.Run(name, func(t *testing.T) {
			f.set(func(f *fakeCatwalk) { f.providers, f.body, f.status = baseProviders(), "", 0 })
			f.set(c.breakIt)
			_, err := update(t, url, "2026-11-28")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("the kept catalogue changed")
			}
		})
	}
}

// A file kept before prices were checked is not priced from: reading it
// is an error (Apply warns and the built-in catalogue is used).
func TestAKeptFileWithAnAbsurdPriceIsNotUsed(t *testing.T) {
	_, url := serve(t)
	if _, err := update(t, url, "2026-11-26"); err != nil {
		t.Fatal(err)
	}
	path, _ := Path(os.Getenv)
	data, _ := os.ReadFile(path)
	poisoned := strings.Replace(string(data), `"cost_per_1m_in":2,`, `"cost_per_1m_in":1.7e308,`, 1)
	if poisoned == string(data) {
		t.Fatalf("the kept file has no price to poison: %.300s", data)
	}
	if err := os.WriteFile(path, []byte(poisoned), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := Kept(os.Getenv); ok || err == nil || !strings.Contains(err.Error(), "input price: 1.7e+308 is over") {
		t.Fatalf("Kept: ok %v, %v", ok, err)
	}
}
