package providers

import (
	"strings"
	"testing"
	"time"
)

func price(v float64) *float64 { return &v }

func TestFamilyRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model       string
		reasoning   bool
		temperature bool
		api         string
		maxOut      int
	}{
		{"gpt-6.1-sol", true, false, "", 0},
		{"gpt-7-nova", true, false, "", 0}, // any later gpt reasons
		{"openai/gpt-5-mini", true, false, "", 0},
		{"o4-mini", true, false, "", 0},
		{"gpt-5.3-codex", true, false, "responses", 0},
		{"gpt-4o", false, true, "", 0},
		{"claude-sonnet-4-6", false, true, "", 64000},
		{"claude-opus-4-1", false, true, "", 32000},
		{"claude-opus-4-7", false, false, "", 64000},
		{"claude-sonnet-5-5", false, false, "", 128000},
		{"claude-3-5-haiku-20241022", false, true, "", 8192},
		{"gemini-2.5-flash", false, true, "", 65536},
		{"gemini-3.8-flash", false, false, "", 65536},
		{"llama3.2", false, true, "", 0},
	} {
		f := Family(c.model)
		if f.Reasoning != c.reasoning || f.AcceptsTemperature() != c.temperature || f.API != c.api || f.MaxOutput != c.maxOut {
			t.Errorf("%s: reasoning %v temperature %v api %q max %d", c.model, f.Reasoning, f.AcceptsTemperature(), f.API, f.MaxOutput)
		}
	}
}

func TestLookupExactSnapshotAndFamily(t *testing.T) {
	t.Parallel()
	cat := Catalogue{
		"gpt-6.1-sol":      {Provider: "openai", Reasoning: true, Input: price(2), Output: price(10)},
		"claude-haiku-4-5": {Provider: "anthropic", Input: price(1), Output: price(5)},
	}
	if m := cat.Lookup("GPT-6.1-SOL"); !m.Known || !m.Priced() {
		t.Errorf("exact lookup: %+v", m)
	}
	if m := cat.Lookup("claude-haiku-4-5-20251001"); !m.Known || m.MaxOutput != 64000 {
		t.Errorf("a dated snapshot takes its model's entry and the family's limits: %+v", m)
	}
	if m := cat.Lookup("gpt-6.1-solar"); m.Known || m.Priced() || !m.Reasoning {
		t.Errorf("another model is not a snapshot: %+v", m)
	}
}

func TestCostPricesCacheWritesPerProvider(t *testing.T) {
	t.Parallel()
	u := Usage{InputTokens: 1_000_000, CachedTokens: 200_000, CacheWriteTokens: 300_000, OutputTokens: 100_000}
	claude := ModelInfo{Provider: "anthropic", Input: price(3), CachedInput: price(0.3), Output: price(15)}
	// 500k fresh × 3 + 200k × 0.3 + 300k × 3.75 (1.25 × input) + 100k × 15
	if got, ok := claude.Cost(u); !ok || abs(got-(1.5+0.06+1.125+1.5)) > 1e-9 {
		t.Errorf("anthropic cost = %v %v", got, ok)
	}
	openai := ModelInfo{Provider: "openai", Input: price(2), CachedInput: price(0.1), Output: price(10)}
	if got, _ := openai.Cost(u); abs(got-(1.0+0.02+0.6+1.0)) > 1e-9 {
		t.Errorf("openai cost = %v", got)
	}
	if _, ok := (ModelInfo{Provider: "openai"}).Cost(u); ok {
		t.Error("a model without a price has a known cost")
	}
	if FormatCost(0, true) != "$?" || FormatCost(0.01234, false) != "$0.0123" {
		t.Errorf("FormatCost: %q %q", FormatCost(0, true), FormatCost(0.01234, false))
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestModelWarnings(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	gpt5 := ModelInfo{Reasoning: true, Shutdown: "2026-12-11", Replacement: "gpt-6.1-sol"}
	w := ModelWarnings("agents[1]", "gpt-5", gpt5, true, now)
	if len(w) != 2 || w[0] != "agents[1].model: gpt-5 shuts down on 2026-12-11 (in 18 days); switch to gpt-6.1-sol" ||
		!strings.HasPrefix(w[1], "agents[1].temperature: gpt-5 does not accept a temperature") {
		t.Fatalf("warnings = %q", w)
	}
	gone := ModelInfo{Shutdown: "2026-06-17", Replacement: "gemini-3.8-flash"}
	if w := ModelWarnings("agents[0]", "gemini-2.5-flash", gone, false, now); len(w) != 1 || !strings.Contains(w[0], "was shut down on 2026-06-17; switch to gemini-3.8-flash") {
		t.Fatalf("past shutdown: %q", w)
	}
	later := ModelInfo{Shutdown: "2027-04-01"}
	if w := ModelWarnings("agents[0]", "gpt-5.1", later, false, now); len(w) != 0 {
		t.Fatalf("a shutdown four months away is no warning yet: %q", w)
	}
	retired := ModelInfo{Retired: true, Replacement: "gpt-5.3-codex"}
	if w := ModelWarnings("agents[3]", "gpt-5-codex", retired, false, now); len(w) != 1 || w[0] != "agents[3].model: gpt-5-codex is shut down; switch to gpt-5.3-codex" {
		t.Fatalf("retired: %q", w)
	}
}

func TestFinishError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reason, detail, text string
		kind                 ErrorKind
		want                 string
	}{
		{"stop", "", "hello", "", ""},
		{"end_turn", "", "", KindEmpty, "empty answer"},
		{"length", "", "half an ans", KindTruncated, "(cut at 120 output tokens — raise max_tokens)"},
		{"MAX_TOKENS", "", "", KindTruncated, "no answer: the output limit was spent before any text"},
		{"max_output_tokens", "", "x", KindTruncated, "cut at 120"},
		{"refusal", "I can't help with that.", "", KindRefused, "refused to answer (refusal): I can't help with that."},
		{"content_filter", "", "some", KindRefused, "safety filter (content_filter)"},
		{"SAFETY", "", "", KindRefused, "safety filter (SAFETY)"},
		{BlockedPrefix + "PROHIBITED_CONTENT", "", "", KindRefused, "the prompt was blocked (PROHIBITED_CONTENT)"},
	} {
		res := Result{FinishReason: c.reason, Detail: c.detail, Usage: Usage{OutputTokens: 120}}
		err := FinishError("p", res, c.text, 500)
		if c.kind == "" {
			if err != nil {
				t.Errorf("%s: unexpected %v", c.reason, err)
			}
			continue
		}
		if err == nil || err.Kind != c.kind || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %s containing %q", c.reason, err, c.kind, c.want)
		}
	}
}
