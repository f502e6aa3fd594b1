package providers

import (
	"slices"
	"testing"
	"time"
)

// Anthropic's prompt-caching page (2026-11-25): the shortest cacheable
// prefix per model, which decides where Parley sets a cache breakpoint.
func TestAnthropicCacheMinimums(t *testing.T) {
	for model, want := range map[string]int{
		"claude-opus-5-5": 512, "claude-opus-5": 512, "claude-fable-5-1": 512, "claude-fable-5": 512,
		"claude-opus-4-8": 1024, "claude-opus-4-7": 2048, "claude-opus-4-6": 4096, "claude-opus-4-5": 4096,
		"claude-sonnet-5": 1024, "claude-sonnet-4-6": 1024, "claude-haiku-4-5": 4096, "claude-3-5-haiku-20241022": 2048,
	} {
		if got := Family(model).CacheMin; got != want {
			t.Errorf("%s: cache minimum %d, want %d", model, got, want)
		}
	}
}

// Anthropic's effort page and OpenAI's gpt-6 pages: who takes xhigh, max.
func TestEffortLaddersPerFamily(t *testing.T) {
	for model, want := range map[string][]string{
		"claude-opus-5-5":   EffortLevels,
		"claude-haiku-5-5":  EffortLevels,
		"claude-opus-4-7":   EffortLevels,
		"claude-sonnet-4-6": {"low", "medium", "high", "max"},
		"claude-opus-4-5":   {"low", "medium", "high"},
		"claude-haiku-4-5":  {},
		"gpt-6.2-astra":     EffortLevels,
		"gpt-5.3-codex":     {"low", "medium", "high"},
		"gemini-4-argon":    {"low", "medium", "high"},
	} {
		if got := Family(model).Efforts; !slices.Equal(got, want) {
			t.Errorf("%s: efforts %v, want %v", model, got, want)
		}
	}
	if Family("gpt-6.1-sol").ToolsAPI != "responses" || Family("gpt-5.4-mini").ToolsAPI != "responses" || Family("gpt-5.2").ToolsAPI != "" {
		t.Error("tools need the Responses API from gpt-5.4 on only")
	}
}

// snapshotOn is a snapshot fetched on day whose data the source dates day.
func snapshotOn(day string, models ...Fetched) Snapshot {
	at, _ := time.Parse("2006-01-02", day)
	return Snapshot{Source: "http://catwalk.test/v2/providers", Fetched: at, Dated: day, Models: models}
}

// Newest fact wins: a price fetched after the entry was checked replaces
// it (and the schedule up to that day); an older one does not; Parley's
// lifecycle and tier stay; a model only the snapshot knows is added.
func TestOverlayPrecedence(t *testing.T) {
	own := Catalogue{
		"gemini-4-argon": {Provider: "gemini", Input: price(2), Output: price(10), Checked: "2026-11-25", Source: "https://ai.google.dev/gemini-api/docs/pricing",
			Prices: []PriceChange{{From: "2026-12-01", Input: price(4), Output: price(20)}, {From: "2027-03-01", Input: price(5)}},
			Status: "active", Context: 1048576},
		"claude-haiku-4-5": {Provider: "anthropic", Input: price(1), Output: price(5), Status: "legacy", Replacement: "claude-haiku-5-5", Checked: "2026-11-25"},
	}
	argon := Fetched{Provider: "gemini", ID: "gemini-4-argon", Input: 4, Output: 20, CachedInput: 0.2, Context: 2000000, MaxOutput: 65536, Efforts: []string{"minimal", "low", "high"}}
	haiku := Fetched{Provider: "anthropic", ID: "claude-haiku-4-5-20251001", Input: 0.8, Output: 0}
	fresh := Fetched{Provider: "openai", ID: "gpt-6.3-nova", Input: 3, Output: 12, CachedInput: 0.3}

	later := Overlay(own, snapshotOn("2026-12-03", argon, haiku, fresh))
	a := later["gemini-4-argon"]
	if *a.Input != 4 || *a.Output != 20 || *a.CachedInput != 0.2 || a.OriginOf("input").Layer != LayerCatwalk {
		t.Errorf("a later fetch wins: %+v", a)
	}
	if len(a.Prices) != 1 || a.Prices[0].From != "2027-03-01" {
		t.Errorf("the schedule after the fetch day stays, the rest is in the fetched price: %+v", a.Prices)
	}
	if a.Context != 1048576 || a.OriginOf("context").Layer != LayerParley || a.MaxOutput != 65536 || a.OriginOf("max_output").Layer != LayerCatwalk {
		t.Errorf("Parley's limit stays, an open one is filled: context %d max %d", a.Context, a.MaxOutput)
	}
	if !slices.Equal(a.Efforts, []string{"low", "high"}) {
		t.Errorf("efforts: %v", a.Efforts)
	}
	h := later["claude-haiku-4-5"]
	if *h.Input != 0.8 || *h.Output != 5 || h.Status != "legacy" || h.Replacement != "claude-haiku-5-5" || h.OriginOf("output").Layer != LayerParley {
		t.Errorf("a dated snapshot id overlays its model; a 0 price is none; lifecycle is Parley's: %+v", h)
	}
	n := later["gpt-6.3-nova"]
	if !n.Priced() || *n.CachedInput != 0.3 || n.OriginOf("input") != (Origin{Layer: LayerCatwalk, Source: "http://catwalk.test/v2/providers", Date: "2026-12-03"}) {
		t.Errorf("a new model is added with its origin: %+v", n)
	}
	if *own["gemini-4-argon"].Input != 2 {
		t.Error("Overlay changed its input")
	}

	earlier := Overlay(own, snapshotOn("2026-11-20", argon))
	if e := earlier["gemini-4-argon"]; *e.Input != 2 || len(e.Prices) != 2 || e.OriginOf("input").Layer != LayerParley {
		t.Errorf("a fetch older than the entry loses: %+v", e)
	}
	// The cost of a call after the update uses the fetched price.
	u := Usage{InputTokens: 1_000_000, OutputTokens: 100_000}
	if got, _ := later.Lookup("gemini-4-argon").CostAt(u, time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)); abs(got-(4+2)) > 1e-9 {
		t.Errorf("cost after update = %v", got)
	}
}

// Catwalk's data fetched today may be months old: a snapshot fetched after
// the entry was checked replaces its price only when the source's own date
// is after the check date too; one with no date of its own never does (it
// still fills what the entry leaves open and adds new models).
func TestOverlayGoesByTheSourcesOwnDate(t *testing.T) {
	own := Catalogue{"gpt-6-luna": {Provider: "openai", Input: price(0.10), Output: price(0.50), Checked: "2026-11-28",
		Prices: []PriceChange{{From: "2027-02-01", Input: price(0.20)}}},
		"gemini-3.7-flash": {Provider: "gemini", Status: "active", Checked: "2026-11-28"}} // no price known
	stale := Fetched{Provider: "openai", ID: "gpt-6-luna", Input: 1, Output: 6, MaxOutput: 128000}
	fresh := Fetched{Provider: "openai", ID: "gpt-6-sol", Input: 2, Output: 10}
	open := Fetched{Provider: "gemini", ID: "gemini-3.7-flash", Input: 1.5, Output: 7.5}
	at := func(fetched, dated string) Snapshot {
		s := snapshotOn(fetched, stale, fresh, open)
		s.Dated = dated
		return s
	}
	for _, c := range []struct {
		name, fetched, dated string
		wantInput            float64
	}{
		{"fetched today, last edited in August", "2026-11-28", "2026-08-14", 0.10},
		{"fetched after the check, no date of its own", "2026-12-05", "", 0.10},
		{"dated the check day itself", "2026-12-05", "2026-11-28", 0.10},
		{"dated after the check", "2026-12-05", "2026-11-29", 1},
	} {
		got := Overlay(own, at(c.fetched, c.dated))
		l := got["gpt-6-luna"]
		if *l.Input != c.wantInput {
			t.Errorf("%s: input %v, want %v", c.name, *l.Input, c.wantInput)
		}
		if l.MaxOutput != 128000 || !got["gpt-6-sol"].Priced() || !got["gemini-3.7-flash"].Priced() || got["gemini-3.7-flash"].Status != "active" {
			t.Errorf("%s: an open limit and an open price are filled and a new model added whatever the date", c.name)
		}
		if c.wantInput == 1 && (len(l.Prices) != 1 || l.OriginOf("input").Date != c.dated) {
			t.Errorf("%s: the later schedule stays and the price is as old as its source: %+v", c.name, l)
		}
	}
}
