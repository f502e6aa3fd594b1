package providers

import (
	"math"
	"testing"
	"time"
)

func f(v float64) *float64 { return &v }

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// gemini-3.8-flash's introductory price ends on 2027-01-01: a call is
// priced at the price in force on its day.
func TestPriceScheduleByCallDate(t *testing.T) {
	t.Parallel()
	m := ModelInfo{Provider: "gemini", Input: f(0.75), CachedInput: f(0.075), Output: f(3.75),
		Prices: []PriceChange{{From: "2027-01-01", Input: f(1.50), CachedInput: f(0.15), Output: f(7.50)}}}
	u := Usage{InputTokens: 1_000_000, CachedTokens: 400_000, OutputTokens: 1_000_000}
	for _, c := range []struct {
		at   string
		want float64
	}{
		{"2026-12-31", 0.6*0.75 + 0.4*0.075 + 3.75},
		{"2027-01-01", 0.6*1.50 + 0.4*0.15 + 7.50},
		{"2031-06-01", 0.6*1.50 + 0.4*0.15 + 7.50},
	} {
		got, ok := m.CostAt(u, day(c.at))
		if !ok || !near(got, c.want) {
			t.Errorf("%s: cost %v, want %v", c.at, got, c.want)
		}
	}
	// A change that names one price keeps the others.
	s := ModelInfo{Input: f(2), CachedInput: f(0.20), Output: f(10), Prices: []PriceChange{{From: "2026-10-07", CachedInput: f(0.10)}}}
	if got := s.At(day("2026-11-25")); *got.CachedInput != 0.10 || *got.Input != 2 || *got.Output != 10 {
		t.Errorf("after the cache-read cut: %v / %v / %v", *got.Input, *got.CachedInput, *got.Output)
	}
	if got := s.At(day("2026-10-06")); *got.CachedInput != 0.20 {
		t.Errorf("before the cut: cached %v", *got.CachedInput)
	}
}

// gpt-6.1-sol: above 272K input tokens the whole request pays 2× input and
// 1.5× output.
func TestLongContextTier(t *testing.T) {
	t.Parallel()
	m := ModelInfo{Provider: "openai", Input: f(2), CachedInput: f(0.10), Output: f(10),
		LongContext: &LongContext{Above: 272_000, Input: 2, Output: 1.5}}
	short := Usage{InputTokens: 272_000, OutputTokens: 1000}
	if got, _ := m.CostAt(short, day("2026-11-25")); !near(got, (272_000*2+1000*10)/1e6) {
		t.Errorf("at the threshold: %v", got)
	}
	long := Usage{InputTokens: 300_000, CachedTokens: 100_000, OutputTokens: 1000}
	want := (200_000*2*2 + 100_000*0.10*2 + 1000*10*1.5) / 1e6
	if got, _ := m.CostAt(long, day("2026-11-25")); !near(got, want) {
		t.Errorf("above it: %v, want %v", got, want)
	}
}

func TestStatusAt(t *testing.T) {
	t.Parallel()
	now := day("2026-11-25")
	for _, c := range []struct {
		m    ModelInfo
		want string
	}{
		{ModelInfo{}, "active"},
		{ModelInfo{Status: "legacy"}, "legacy"},
		{ModelInfo{Status: "deprecated", Shutdown: "2026-12-01"}, "deprecated"},
		{ModelInfo{Status: "deprecated", Shutdown: "2026-11-25"}, "shutdown"},
		{ModelInfo{Deprecated: "2026-06-11"}, "deprecated"},
		{ModelInfo{Retired: true}, "shutdown"},
	} {
		if got := c.m.StatusAt(now); got != c.want {
			t.Errorf("%+v: %s, want %s", c.m, got, c.want)
		}
	}
}

func TestEffortFamilies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model, level string
		want         bool
	}{
		{"gpt-6.1-sol", "medium", true},
		{"gpt-5.3-codex", "high", true},
		{"gpt-4o", "low", false},
		{"claude-sonnet-5-5", "low", true},
		{"claude-sonnet-4-6", "medium", true},
		{"claude-opus-4-5", "high", true},
		{"claude-haiku-4-5", "low", false},
		{"claude-sonnet-4-5", "low", false},
		{"gemini-3.8-flash", "medium", true},
		{"gemini-3.1-pro-preview", "medium", false},
		{"gemini-3.1-pro-preview", "high", true},
		{"gemini-2.5-flash", "low", false},
		{"llama3.2", "low", false},
	} {
		if got := (Catalogue{}).Lookup(c.model).AcceptsEffort(c.level); got != c.want {
			t.Errorf("%s takes %s: %v, want %v", c.model, c.level, got, c.want)
		}
	}
	// The catalogue's list overrides the family's.
	cat := Catalogue{"gemini-3.8-flash": {Efforts: []string{"low", "high"}}}
	if cat.Lookup("gemini-3.8-flash").AcceptsEffort("medium") {
		t.Error("an entry's efforts list should override the family rule")
	}
}
