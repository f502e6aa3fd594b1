package catalog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"charm.land/catwalk/pkg/catwalk"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/providers"
)

// The table of the built-in catalogue fits 100 columns and says what
// the pages say; --json carries every figure's origin.
func TestTableFitsAndShowsTheCatalogue(t *testing.T) {
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	now := day("2026-11-25")
	var out bytes.Buffer
	Table(&out, Rows(l.Config.Models, now))
	for _, line := range strings.Split(out.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > TableWidth {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	for _, want := range []string{
		"anthropic claude-haiku-4-5       1.00/5.00   0.10/-     200K  -         legacy         parley 11-25",
		"anthropic claude-haiku-5-5       0.10/0.50   0.01/0.125 1M    lo-max    active",
		"anthropic claude-sonnet-4-6      3.00/15.00  0.30/-     1M    lo-hi,max legacy",
		"openai    gpt-5                  1.25/10.00  0.125/-    400K  lo-hi     dep 2026-12-11",
		"gemini    gemini-3.5-flash       1.50/9.00   ?",
		"openai    gpt-6-luna             0.10/0.50   0.01/0.125 1.05M lo-max    active         parley 11-28",
		"openai    gpt-4o                 ?           ?          -     -         dep 2027-01-14",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	var rows []Row
	out.Reset()
	if err := JSON(&out, []Row{RowOf(l.Config.Models, "gemini-4-argon", now)}); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("json: %v", err)
	}
	r := rows[0]
	if *r.Input != 2 || len(r.Schedule) != 1 || r.Figures["input"].Source != "https://ai.google.dev/gemini-api/docs/pricing" || r.Figures["efforts"].Layer != providers.LayerFamily {
		t.Errorf("argon row: %+v", r)
	}
	out.Reset()
	Describe(&out, RowOf(l.Config.Models, "claude-haiku-5-5", now), true)
	if !strings.Contains(out.String(), "long_context  above 100000 input tokens: input x5, output x5") ||
		!strings.Contains(out.String(), "input         0.10       parley   2026-11-25 https://platform.claude.com/docs/en/models/haiku-5-5/overview") {
		t.Errorf("describe:\n%s", out.String())
	}
}

// Whatever a catwalk service answers, Validate decides without panicking,
// and what it takes overlays into prices that are never negative.
func FuzzValidate(f *testing.F) {
	seed, _ := json.Marshal(baseProviders())
	f.Add(seed)
	f.Add([]byte(`[{"id":"openai","models":[{"id":"x","cost_per_1m_in":-1}]}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"id":"","models":null}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var provs []catwalk.Provider
		if json.Unmarshal(body, &provs) != nil || Validate(provs) != nil {
			return
		}
		var snap providers.Snapshot
		for _, p := range provs {
			for _, m := range p.Models {
				snap.Models = append(snap.Models, providers.Fetched{Provider: string(p.ID), ID: m.ID, Input: m.CostPer1MIn, Output: m.CostPer1MOut})
			}
		}
		for name, m := range providers.Overlay(providers.Catalogue{}, snap) {
			if c, ok := m.Cost(providers.Usage{InputTokens: 10, OutputTokens: 10}); ok && c < 0 {
				t.Fatalf("%s costs %v", name, c)
			}
		}
	})
}
