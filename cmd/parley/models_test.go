package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A configured model near its shutdown and a temperature the model does
// not take are both named at start, with the config key; the temperature
// is then not sent.
func TestStartWarnsAboutShutdownsAndDroppedTemperatures(t *testing.T) {
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
	dir := isolate(t)
	for yaml, want := range map[string]string{
		"models:\n  x: {api: soap}\n":         "models.x.api",
		"models:\n  x: {shutdown: soon}\n":    "models.x.shutdown",
		"models:\n  x: {input: -1}\n":         "models.x",
		"providers:\n  openai: {api: grpc}\n": "providers.openai.api",
		"models:\n  x: {reasons: true}\n":     "reasons",
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
	dir := isolate(t)
	fakeVendors(t, dir, "") // the fakes list no models: every agent's model is "not served here"
	code, out, _ := runCLI(t, "", "doctor")
	if code != 1 || !strings.Contains(out, "AGENT") || !strings.Contains(out, "not served here") || !strings.Contains(out, "agents have a problem") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
