package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A configured model near its shutdown and a temperature the model does
// not take are both named at start, with the config key; the temperature
// is then not sent.
func TestStartWarnsAboutShutdownsAndDroppedTemperatures(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	openai, _, _ := fakeVendors(t, dir, `agents:
  - {name: old, display: Old, provider: openai, model: gpt-5, temperature: 0.2}
  - {name: new, display: New, provider: openai, model: gpt-6.1-sol}
modes:
  mention: {agents: [old, new]}
  alternate: {agents: [old, new]}
  talk: {a: old, b: new, moderator: new}
  magi: {agents: [old, new, old]}
  agent: {agent: new}
`)
	code, _, stderr := runCLI(t, "", "ask", "@old hello")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"].model: gpt-5 ", // "shuts down on" now, "was shut down on" after the date
		"2026-12-11",
		"switch to gpt-6.1-sol",
		"].temperature: gpt-5 does not accept a temperature",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "warning: "); n != 2 {
		t.Errorf("%d warnings, want 2 (a current model is not warned about):\n%s", n, stderr)
	}
	for _, r := range openai.Requests() {
		if _, sent := r.JSON["temperature"]; sent {
			t.Errorf("temperature sent to gpt-5: %s", r.Body)
		}
		if r.Path != "/v1/responses" {
			t.Errorf("path %s, want the Responses API", r.Path)
		}
	}
}

func TestConfigRejectsBadCatalogueEntries(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	for yaml, want := range map[string]string{
		"models:\n  x: {api: soap}\n":                        "models.x.api",
		"models:\n  x: {shutdown: soon}\n":                   "models.x.shutdown",
		"models:\n  x: {input: -1}\n":                        "models.x",
		"providers:\n  openai: {api: grpc}\n":                "providers.openai.api",
		"models:\n  x: {reasons: true}\n":                    "reasons",
		"models:\n  \"x\\e]52;c;cHduZWQ=\\a\": {input: 1}\n": `models: id "x\x1b]52;c;chduzwq=\a"`,
	} {
		if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "", "--demo", "ask", "@all hi")
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stderr %q, want it to name %s", yaml, code, stderr, want)
		}
	}
}

func TestDoctorCommandExitsOneOnAProblem(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	fakeVendors(t, dir, "") // the fakes list no models: every agent's model is "not served here"
	code, out, _ := runCLI(t, "", "doctor")
	if code != 1 || !strings.Contains(out, "AGENT") || !strings.Contains(out, "not served here") || !strings.Contains(out, "agents have a problem") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// `parley models update --source` fetches a catwalk service's providers;
// `parley models` then prices a model only catwalk knows, says so, and
// fits 100 columns; a 500 is refused with the catalogue kept.
func TestModelsCommandAndUpdate(t *testing.T) {
	t.Parallel()
	isolate(t)
	var fail atomic.Bool // the handler runs on the server's goroutine
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() || r.URL.Path != "/v2/providers" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, `[{"id":"openai","name":"OpenAI","models":[{"id":"gpt-6.3-nova","cost_per_1m_in":3,"cost_per_1m_out":12,"context_window":2000000}]},
{"id":"anthropic","name":"Anthropic","models":[{"id":"claude-haiku-5-5","cost_per_1m_in":0.1,"cost_per_1m_out":0.5}]},
{"id":"gemini","name":"Gemini","models":[{"id":"gemini-4-argon","cost_per_1m_in":2,"cost_per_1m_out":10}]}]`)
	}))
	defer srv.Close()
	code, out, stderr := runCLI(t, "", "models", "update", "--source", srv.URL)
	if code != 0 || !strings.Contains(out, "3 providers, 3 models") {
		t.Fatalf("update: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "models")
	if code != 0 || !strings.Contains(out, "openai    gpt-6.3-nova           3.00/12.00") || !strings.Contains(out, "catwalk ") {
		t.Fatalf("models: exit %d\n%s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 100 {
			t.Errorf("wider than 100 columns: %q", line)
		}
	}
	if code, out, _ = runCLI(t, "", "models", "gpt-6.3-nova"); code != 0 || !strings.Contains(out, "input         3.00       catwalk") {
		t.Errorf("models gpt-6.3-nova: exit %d\n%s", code, out)
	}
	fail.Store(true)
	if code, _, stderr = runCLI(t, "", "models", "update", "--source", srv.URL); code == 0 || !strings.Contains(stderr, "500") {
		t.Errorf("a 500 was taken: exit %d %s", code, stderr)
	}
	if code, out, _ = runCLI(t, "", "models", "--json"); code != 0 || !strings.Contains(out, `"model": "gpt-6.3-nova"`) {
		t.Errorf("the kept catalogue was lost after a refused update: exit %d", code)
	}
}
