package configload

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/providers"
)

// The built-in catalogue holds together: every default agent's model is
// priced, every named replacement has an entry, dates are dates and in
// order, every vendor entry names its page and the day it was checked.
func TestBuiltinCatalogueIsConsistent(t *testing.T) {
	l, err := Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.Config
	for _, a := range cfg.Agents {
		if cfg.Providers[a.Provider].Type == "demo" {
			continue
		}
		if !cfg.ModelInfo(a.Model).Priced() {
			t.Errorf("default agent %s: %s has no price", a.Name, a.Model)
		}
		if a.Effort != "" && !cfg.ModelInfo(a.Model).AcceptsEffort(a.Effort) {
			t.Errorf("default agent %s: %s does not take effort %s", a.Name, a.Model, a.Effort)
		}
	}
	for name, m := range cfg.Models {
		if m.Replacement != "" {
			if _, ok := cfg.Models[m.Replacement]; !ok {
				t.Errorf("%s: replacement %s has no entry", name, m.Replacement)
			}
		}
		checkDates(t, name, m)
		if m.Provider != "" && (!strings.HasPrefix(m.Source, "https://") || m.Checked == "") {
			t.Errorf("%s: no source page or checked date", name)
		}
	}
}

func checkDates(t *testing.T, name string, m providers.ModelInfo) {
	t.Helper()
	var dates []string
	for _, d := range []string{m.Deprecated, m.Shutdown, m.Checked} {
		if d == "" {
			continue
		}
		if _, err := time.Parse("2006-01-02", d); err != nil {
			t.Errorf("%s: %q is not a date", name, d)
		}
	}
	if m.Deprecated != "" && m.Shutdown != "" && m.Deprecated > m.Shutdown {
		t.Errorf("%s: deprecated %s after shutdown %s", name, m.Deprecated, m.Shutdown)
	}
	if m.Checked > providers.CatalogueDate {
		t.Errorf("%s: checked %s after the catalogue's date %s", name, m.Checked, providers.CatalogueDate)
	}
	for _, p := range m.Prices {
		dates = append(dates, p.From)
	}
	if !slices.IsSorted(dates) || len(slices.Compact(slices.Clone(dates))) != len(dates) {
		t.Errorf("%s: price changes not in strictly increasing date order: %v", name, dates)
	}
}

// The figures issue 34 corrected, as the pages give them.
func TestCatalogueFiguresFromTheVendorsPages(t *testing.T) {
	l, err := Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.Config
	day := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	cost := func(model string, u providers.Usage, at time.Time) float64 {
		c, ok := cfg.CostAt(model, u, at)
		if !ok {
			t.Fatalf("%s has no price", model)
		}
		return c
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	// Haiku 5.5: $0.10/$0.50 up to 100K prompt tokens, x5 above.
	near("haiku 5.5 at 100K", cost("claude-haiku-5-5", providers.Usage{InputTokens: 100_000, OutputTokens: 10_000}, day), 0.01+0.005)
	near("haiku 5.5 at 200K", cost("claude-haiku-5-5", providers.Usage{InputTokens: 200_000, OutputTokens: 10_000}, day), (0.02+0.005)*5)
	near("haiku 5.5 cache read", cost("claude-haiku-5-5", providers.Usage{InputTokens: 1_000_000, CachedTokens: 1_000_000}, day)/5, 0.01)
	// gpt-6.1-terra: x2 input, x1.5 output above 272K.
	near("terra above 272K", cost("gpt-6.1-terra", providers.Usage{InputTokens: 300_000, OutputTokens: 100_000}, day), 0.3*2+0.5*1.5)
	// gemini-4-argon: $2/$10, then $4/$20 from 2026-12-01.
	u := providers.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	near("argon in November", cost("gemini-4-argon", u, day), 12)
	near("argon in December", cost("gemini-4-argon", u, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)), 24)
	if st := cfg.ModelInfo("claude-haiku-4-5").StatusAt(day); st != "legacy" || cfg.ModelInfo("claude-haiku-4-5").Replacement != "claude-haiku-5-5" {
		t.Errorf("claude-haiku-4-5: %s", st)
	}
	if r := cfg.ModelInfo("gemini-3-flash-preview").Replacement; r != "gemini-3.5-flash" {
		t.Errorf("gemini-3-flash-preview replacement %q", r)
	}
	for model, want := range map[string]int{"claude-sonnet-5-5": 1024, "claude-haiku-4-5": 4096, "claude-opus-5-5": 512} {
		if got := cfg.ModelInfo(model).CacheMin; got != want {
			t.Errorf("%s cache_min %d, want %d", model, got, want)
		}
	}
}
