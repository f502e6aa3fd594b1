package catalog

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/catwalk/pkg/catwalk"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers"
)

// fakeCatwalk serves /v2/providers on loopback the way catwalk does: the
// JSON of its providers with their ETag (on a 304 too), 304 when
// If-None-Match matches, and Last-Modified when modified is set. body and
// status, when set, replace the answer (a malformed body, a 500, a 304 to
// anything).
type fakeCatwalk struct {
	mu        sync.Mutex
	providers []catwalk.Provider
	body      string
	status    int
	modified  time.Time
	seen      []string // If-None-Match of each request
}

func (f *fakeCatwalk) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path != "/v2/providers" {
		http.NotFound(w, r)
		return
	}
	f.seen = append(f.seen, r.Header.Get("If-None-Match"))
	body := []byte(f.body)
	if f.body == "" {
		body, _ = json.Marshal(f.providers)
	}
	etag := `"` + catwalk.Etag(body) + `"`
	w.Header().Set("ETag", etag)
	if !f.modified.IsZero() {
		w.Header().Set("Last-Modified", f.modified.UTC().Format(http.TimeFormat))
	}
	if f.status != 0 {
		w.WriteHeader(f.status)
		return
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body) //nolint:errcheck
}

func (f *fakeCatwalk) set(change func(f *fakeCatwalk)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func model(id string, in, out, write, read float64) catwalk.Model {
	return catwalk.Model{ID: id, Name: id, CostPer1MIn: in, CostPer1MOut: out, CostPer1MInCached: write, CostPer1MOutCached: read,
		ContextWindow: 1_000_000, DefaultMaxTokens: 64_000, ReasoningLevels: []string{"low", "medium", "high"}}
}

func baseProviders() []catwalk.Provider {
	return []catwalk.Provider{
		{ID: "openai", Name: "OpenAI", Models: []catwalk.Model{model("gpt-6.1-sol", 2, 10, 2.5, 0.1)}},
		{ID: "anthropic", Name: "Anthropic", Models: []catwalk.Model{model("claude-haiku-5-5", 0.1, 0.5, 0.125, 0.01)}},
		{ID: "gemini", Name: "Gemini", Models: []catwalk.Model{model("gemini-4-argon", 2, 10, 0, 0.1)}},
		{ID: "xai", Name: "xAI", Models: []catwalk.Model{model("grok-9", 1, 1, 0, 0)}},
	}
}

func serve(t *testing.T) (*fakeCatwalk, string) {
	t.Helper()
	t.Setenv("PARLEY_CACHE_DIR", t.TempDir())
	f := &fakeCatwalk{providers: baseProviders()}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func day(s string) time.Time {
	d, _ := time.Parse("2006-01-02", s)
	return d.Add(12 * time.Hour)
}

func update(t *testing.T, url, on string) (Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Update(ctx, url, day(on), os.Getenv)
}

func keptInput(t *testing.T, id string) float64 {
	t.Helper()
	snap, ok, err := Kept(os.Getenv)
	if err != nil || !ok {
		t.Fatalf("kept: %v %v", ok, err)
	}
	for _, m := range snap.Models {
		if m.ID == id {
			return m.Input
		}
	}
	return -1
}

// An update keeps the answer with its ETag; the next one sends it and a
// 304 keeps the file (confirmed today); a changed price and a new model
// come through.
func TestUpdateETagAndChanges(t *testing.T) {
	f, url := serve(t)
	res, err := update(t, url, "2026-11-26")
	if err != nil || res.Unchanged || res.Providers != 3 || res.Models != 3 {
		t.Fatalf("first update: %+v %v", res, err)
	}
	if f.seen[0] != "" {
		t.Errorf("the first request sent an ETag: %q", f.seen[0])
	}
	res, err = update(t, url, "2026-11-27")
	if err != nil || !res.Unchanged || f.seen[1] == "" {
		t.Fatalf("second update: %+v %v (If-None-Match %q)", res, err, f.seen[1])
	}
	if snap, _, _ := Kept(os.Getenv); snap.Fetched.Format("2006-01-02") != "2026-11-27" {
		t.Errorf("a 304 confirms the catalogue today: %v", snap.Fetched)
	}
	f.set(func(f *fakeCatwalk) {
		f.providers[2].Models[0].CostPer1MIn = 4
		f.providers[0].Models = append(f.providers[0].Models, model("gpt-6.3-nova", 3, 12, 0, 0.3))
	})
	if res, err = update(t, url, "2026-12-02"); err != nil || res.Unchanged || res.Models != 4 {
		t.Fatalf("changed: %+v %v", res, err)
	}
	if keptInput(t, "gemini-4-argon") != 4 || keptInput(t, "gpt-6.3-nova") != 3 || keptInput(t, "grok-9") != -1 {
		t.Error("the changed price, the new model, and only the providers Parley uses are kept")
	}
}

// A malformed body, a 500, a provider missing, a negative price or an
// empty id is refused, and the catalogue kept stays byte for byte.
func TestUpdateRefusesBadAnswersAndKeepsThePrevious(t *testing.T) {
	f, url := serve(t)
	if _, err := update(t, url, "2026-11-26"); err != nil {
		t.Fatal(err)
	}
	path, _ := Path(os.Getenv)
	before, _ := os.ReadFile(path)
	bad := map[string]func(f *fakeCatwalk){
		"malformed": func(f *fakeCatwalk) { f.body = `[{"id":"openai","models":[{"id":` },
		"500":       func(f *fakeCatwalk) { f.status = http.StatusInternalServerError },
		"partial":   func(f *fakeCatwalk) { f.providers = f.providers[:2] },
		"negative":  func(f *fakeCatwalk) { f.providers[1].Models[0].CostPer1MOut = -1 },
		"empty id":  func(f *fakeCatwalk) { f.providers[0].Models[0].ID = " " },
	}
	for name, breakIt := range bad {
		t.Run(name, func(t *testing.T) {
			f.set(func(f *fakeCatwalk) { f.providers, f.body, f.status = baseProviders(), "", 0 })
			f.set(breakIt)
			if _, err := update(t, url, "2026-11-28"); err == nil {
				t.Fatal("a bad answer was taken")
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("the kept catalogue changed")
			}
		})
	}
}

// Layers, newest fact wins, and the cost of a call after an update: a
// price the source dates after the catalogue's date beats the compiled-in
// one; lifecycle and tiers stay Parley's; a model only catwalk knows is
// priced.
func TestUpdatedCatalogueFeedsCosts(t *testing.T) {
	f, url := serve(t)
	f.set(func(f *fakeCatwalk) {
		f.modified = day("2026-11-29")
		f.providers[1].Models = append(f.providers[1].Models, model("claude-haiku-4-5-20251001", 0.8, 4, 1, 0.08))
		f.providers[0].Models = append(f.providers[0].Models, model("gpt-6.3-nova", 3, 12, 0, 0.3))
	})
	cfg := &config.Config{Models: providers.Catalogue{
		"claude-haiku-4-5": {Provider: "anthropic", Input: ptr(1), Output: ptr(5), Status: "legacy", Replacement: "claude-haiku-5-5", Checked: "2026-11-25"},
		"claude-haiku-5-5": {Provider: "anthropic", Input: ptr(0.1), Output: ptr(0.5), Checked: "2026-11-25",
			LongContext: &providers.LongContext{Above: 100_000, Input: 5, Output: 5}},
	}}
	u := providers.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	at := day("2026-12-01")
	before, _ := cfg.CostAt("claude-haiku-4-5", u, at)
	if _, known := cfg.CostAt("gpt-6.3-nova", u, at); known || before != 6 {
		t.Fatalf("before the update: haiku %v", before)
	}
	if _, err := update(t, url, "2026-11-30"); err != nil {
		t.Fatal(err)
	}
	if w := Apply(cfg, os.Getenv); w != "" {
		t.Fatal(w)
	}
	if after, _ := cfg.CostAt("claude-haiku-4-5", u, at); after != 0.8+4 {
		t.Errorf("after the update haiku 4.5 costs %v, want the fetched 4.8", after)
	}
	if nova, known := cfg.CostAt("gpt-6.3-nova", u, at); !known || nova != 15 {
		t.Errorf("the new model costs %v (%v)", nova, known)
	}
	h := cfg.ModelInfo("claude-haiku-4-5")
	if h.Status != "legacy" || h.OriginOf("input").Layer != providers.LayerCatwalk || !strings.HasSuffix(h.OriginOf("input").Source, "/v2/providers") {
		t.Errorf("haiku 4.5: %+v", h)
	}
	if h5 := cfg.ModelInfo("claude-haiku-5-5"); h5.LongContext == nil || h5.LongContext.Above != 100_000 {
		t.Error("Parley's long-context tier was lost")
	}
}

// An older fetch never beats a newer compiled-in entry, and no kept
// catalogue leaves the configuration as it was.
func TestOlderFetchLosesAndNoFetchChangesNothing(t *testing.T) {
	_, url := serve(t)
	cfg := &config.Config{Models: providers.Catalogue{"gemini-4-argon": {Provider: "gemini", Input: ptr(3), Output: ptr(9), Checked: "2026-11-25"}}}
	Apply(cfg, os.Getenv)
	if len(cfg.Models) != 1 {
		t.Fatal("no kept catalogue, yet models were added")
	}
	if _, err := update(t, url, "2026-11-20"); err != nil {
		t.Fatal(err)
	}
	Apply(cfg, os.Getenv)
	if m := cfg.ModelInfo("gemini-4-argon"); *m.Input != 3 || m.OriginOf("input").Layer != providers.LayerParley {
		t.Errorf("an older fetch won: %+v", m)
	}
}

// auto_update fetches only when on, outside CI, and the kept copy is old.
func TestAutoUpdateIsDue(t *testing.T) {
	_, url := serve(t)
	on := &config.Config{Catalog: config.CatalogConfig{AutoUpdate: true}}
	env := func(ci string) func(string) string {
		return func(k string) string {
			if k == "CI" {
				return ci
			}
			return os.Getenv(k) // PARLEY_CACHE_DIR: where update keeps the catalogue
		}
	}
	now := day("2026-11-26")
	if Due(&config.Config{}, now, env("")) || Due(on, now, env("true")) || !Due(on, now, env("")) {
		t.Fatal("due: off, CI, or nothing kept")
	}
	if _, err := update(t, url, "2026-11-26"); err != nil {
		t.Fatal(err)
	}
	if Due(on, now.Add(time.Hour), env("")) || !Due(on, now.Add(25*time.Hour), env("")) {
		t.Error("due: fresh or a day old")
	}
}

func ptr(v float64) *float64 { return &v }
