package catalog

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/providers"
)

// attackID is issue 42's break 3: a clipboard write (OSC 52) and a screen
// clear in a model id.
const attackID = "x\u001b]52;c;cHduZWQ=\u0007\u001b[2J"

func baseJSON(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(baseProviders())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every unsafe answer is refused with an error naming the entry, the raw
// bytes never in it, and the catalogue kept stays byte for byte: an id
// outside the safe alphabet, duplicate ids (last-wins would be silent),
// trailing bytes, and a catalogue over 8 MiB, declared or not.
func TestUpdateRefusesUnsafeAnswers(t *testing.T) {
	f, url := serve(t)
	if _, err := update(t, url, "2026-11-26"); err != nil {
		t.Fatal(err)
	}
	path, _ := Path(os.Getenv)
	before, _ := os.ReadFile(path)
	big := baseJSON(t) + strings.Repeat(" ", MaxBytes)
	bad := map[string]struct {
		change func(f *fakeCatwalk)
		want   string
	}{
		"terminal escapes in an id": {func(f *fakeCatwalk) { f.providers[0].Models[0].ID = attackID }, `"x\x1b]52;c;cHduZWQ=\a\x1b[2J"`},
		"bidi override in an id":    {func(f *fakeCatwalk) { f.providers[2].Models[0].ID = "gemini\u202e-4" }, `provider gemini, model 1: id "gemini\u202e-4"`},
		"a space in an id":          {func(f *fakeCatwalk) { f.providers[1].Models[0].ID = "claude haiku" }, `"claude haiku"`},
		"an id too long":            {func(f *fakeCatwalk) { f.providers[1].Models[0].ID = strings.Repeat("a", 129) }, "129 bytes long"},
		"escapes in a provider id":  {func(f *fakeCatwalk) { f.providers[3].ID = "x\u009b2J" }, `provider 4: id "x\u009b2J"`},
		"a duplicate model id": {func(f *fakeCatwalk) {
			f.providers[0].Models = append(f.providers[0].Models, model("GPT-6.1-SOL", 0.01, 0.01, 0, 0))
		}, "openai/GPT-6.1-SOL is listed twice"},
		"a duplicate provider": {func(f *fakeCatwalk) { f.providers = append(f.providers, f.providers[0]) }, "provider openai is listed twice"},
		"trailing garbage":     {func(f *fakeCatwalk) { f.body = baseJSON(t) + "\n<html>oops" }, "10 bytes follow the JSON catalogue"},
		"a second catalogue":   {func(f *fakeCatwalk) { f.body = baseJSON(t) + baseJSON(t) }, "bytes follow the JSON catalogue"},
		"over 8 MiB":           {func(f *fakeCatwalk) { f.body = big }, "more than 8388608"},
		// Break 4's price, and the rest of what debate/figures refuses.
		"a price of 1.7e308":   {func(f *fakeCatwalk) { f.providers[0].Models[0].CostPer1MOut = 1.7e308 }, `"openai/gpt-6.1-sol" output price: 1.7e+308 is over $10,000 per 1M tokens`},
		"a price over $10,000": {func(f *fakeCatwalk) { f.providers[2].Models[0].CostPer1MInCached = 10_000.01 }, `"gemini/gemini-4-argon" cache write price: 10000.01 is over`},
		"a negative price":     {func(f *fakeCatwalk) { f.providers[1].Models[0].CostPer1MOutCached = -0.5 }, "cached input price: -0.5 is negative"},
		"a context of 10^12":   {func(f *fakeCatwalk) { f.providers[1].Models[0].ContextWindow = 1e12 }, `"anthropic/claude-haiku-5-5" context window: 1000000000000 is over 100000000`},
		"a negative limit":     {func(f *fakeCatwalk) { f.providers[0].Models[0].DefaultMaxTokens = -1 }, "default max tokens: -1 is negative"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			f.set(func(f *fakeCatwalk) { f.providers, f.body, f.status = baseProviders(), "", 0 })
			f.set(c.change)
			_, err := update(t, url, "2026-11-28")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to name %s", err, c.want)
			}
			if strings.ContainsAny(err.Error(), "\x1b\x07\u009b\u202e") {
				t.Errorf("the error carries raw control bytes: %q", err)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("the kept catalogue changed")
			}
		})
	}
}

// A catalogue larger than 8 MiB sent without a length is refused after
// reading 8 MiB and a byte, not read whole.
func TestUpdateStopsReadingAt8MiB(t *testing.T) {
	t.Setenv("PARLEY_CACHE_DIR", t.TempDir())
	var sent int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for sent < 100<<20 { // 100 MB, the size of issue 42's break 5
			if _, err := w.Write(chunk); err != nil {
				return // the client hung up
			}
			sent += len(chunk)
		}
	}))
	defer srv.Close()
	_, err := update(t, srv.URL, "2026-11-28")
	srv.Close() // waits for the handler
	if err == nil || !strings.Contains(err.Error(), "more than 8388608 bytes") {
		t.Fatalf("err = %v", err)
	}
	if sent >= 100<<20 {
		t.Error("the whole 100 MB were sent: the reader did not stop at the limit")
	}
	if _, ok, _ := Kept(os.Getenv); ok {
		t.Error("something was kept")
	}
}

// A kept copy over 8 MiB, with an unsafe id or with bytes after it (a
// copy an older Parley kept, or one edited by hand) is not used: the
// configuration loads with a warning, and the next update replaces it.
func TestKeptCopyIsCheckedWhenRead(t *testing.T) {
	_, url := serve(t)
	path, _ := Path(os.Getenv)
	good := func() string {
		if _, err := update(t, url, "2026-11-26"); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return string(b)
	}
	for name, damage := range map[string]func(string) string{
		"over 8 MiB":      func(s string) string { return s + strings.Repeat("\n", MaxBytes) },
		"an unsafe id":    func(s string) string { return strings.Replace(s, "gpt-6.1-sol", `x\u001b[2J`, 1) },
		"trailing bytes":  func(s string) string { return s + "{}" },
		"a source of old": func(s string) string { return strings.Replace(s, `"source":"http`, `"source":"\u001b]8;;http`, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(damage(good())), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := &config.Config{Models: providers.Catalogue{}}
			w := Apply(cfg, os.Getenv)
			if w == "" || len(cfg.Models) != 0 || strings.ContainsAny(w, "\x1b") {
				t.Fatalf("warning %q, %d models taken", w, len(cfg.Models))
			}
			if res, err := update(t, url, "2026-11-27"); err != nil || res.Unchanged {
				t.Fatalf("the next update did not replace the refused copy: %+v %v", res, err)
			}
		})
	}
}

// A 304 confirms the kept copy only for the source it came from and the
// ETag Parley sent: another service answering 304 to a request that named
// nothing, or the same one naming another ETag, is refused, and the kept
// copy (source, date) stays as it was.
func TestA304CountsOnlyForItsSourceAndETag(t *testing.T) {
	f, url := serve(t)
	if _, err := update(t, url, "2026-11-26"); err != nil {
		t.Fatal(err)
	}
	path, _ := Path(os.Getenv)
	before, _ := os.ReadFile(path)
	other := &fakeCatwalk{providers: baseProviders(), status: http.StatusNotModified}
	srv := httptest.NewServer(other)
	defer srv.Close()
	if _, err := update(t, srv.URL, "2026-11-28"); err == nil || !strings.Contains(err.Error(), "no ETag sent") {
		t.Errorf("a 304 from another source: %v", err)
	}
	if other.seen[0] != "" {
		t.Errorf("the copy's ETag was sent to another source: %q", other.seen[0])
	}
	f.set(func(f *fakeCatwalk) {
		f.providers[0].Models[0].CostPer1MIn = 3 // a new body, a new ETag
		f.status = http.StatusNotModified
	})
	if _, err := update(t, url, "2026-11-28"); err == nil || !strings.Contains(err.Error(), "not for the copy kept") {
		t.Errorf("a 304 naming another ETag: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a refused 304 changed the kept copy")
	}
	f.set(func(f *fakeCatwalk) { f.providers, f.status = baseProviders(), 0 })
	if res, err := update(t, url, "2026-11-28"); err != nil || !res.Unchanged {
		t.Errorf("the matching 304 is still taken: %+v %v", res, err)
	}
}

// The source's Last-Modified dates the copy (never later than the fetch):
// data fetched today but last edited in August does not beat a price
// Parley checked in November.
func TestLastModifiedDatesTheCopy(t *testing.T) {
	f, url := serve(t)
	f.set(func(f *fakeCatwalk) { f.modified = day("2026-08-14") })
	res, err := update(t, url, "2026-11-28")
	if err != nil || res.Dated != "2026-08-14" {
		t.Fatalf("%+v %v", res, err)
	}
	cfg := &config.Config{Models: providers.Catalogue{"gpt-6.1-sol": {Provider: "openai", Input: ptr(1.5), Output: ptr(9), Checked: "2026-11-25"}}}
	Apply(cfg, os.Getenv)
	if m := cfg.ModelInfo("gpt-6.1-sol"); *m.Input != 1.5 || m.OriginOf("input").Layer != providers.LayerParley {
		t.Errorf("August data beat a November price: %+v", m)
	}
	if m := cfg.ModelInfo("gemini-4-argon"); !m.Priced() || m.OriginOf("input").Date != "2026-08-14" {
		t.Errorf("a model only catwalk knows is added, as old as its data: %+v", m.OriginOf("input"))
	}
	f.set(func(f *fakeCatwalk) { f.modified = day("2031-01-01"); f.providers[0].Models[0].CostPer1MIn = 2.5 })
	if res, _ := update(t, url, "2026-11-29"); res.Dated != "2026-11-29" {
		t.Errorf("a Last-Modified in the future dates the copy %q, want the fetch day", res.Dated)
	}
	f.set(func(f *fakeCatwalk) { f.modified = time.Time{}; f.providers[0].Models[0].CostPer1MIn = 2 })
	if res, _ := update(t, url, "2026-11-30"); res.Dated != "" {
		t.Errorf("no Last-Modified: dated %q", res.Dated)
	}
}

// FuzzParse: any bytes are either refused or parse into a catalogue whose
// every id is safe and unique and which survives its own round trip.
func FuzzParse(f *testing.F) {
	good, _ := json.Marshal(baseProviders())
	f.Add(good)
	f.Add(append(append([]byte{}, good...), " x"...))
	f.Add([]byte(strings.Replace(string(good), "gpt-6.1-sol", `x\u001b]52;c;cHduZWQ=\u0007`, 1)))
	f.Add([]byte(`[{"id":"openai","models":[{"id":"a"},{"id":"A"}]}]`))
	f.Add([]byte(`[{"id":"openai","models":[{"id":"a","cost_per_1m_in":1e309}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		provs, err := Parse(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range provs {
			for _, m := range p.Models {
				key := string(p.ID) + "/" + strings.ToLower(m.ID)
				if providers.CheckID(m.ID) != nil || seen[key] || !(m.CostPer1MIn >= 0 && m.CostPer1MOut <= figures.MaxPriceUSD) || m.ContextWindow > figures.MaxTokens {
					t.Fatalf("accepted %q", m.ID)
				}
				seen[key] = true
			}
		}
		again, _ := json.Marshal(provs)
		if _, err := Parse(again); err != nil {
			t.Fatalf("its own round trip is refused: %v", err)
		}
	})
}
