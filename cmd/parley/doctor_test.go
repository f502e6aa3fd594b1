package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/providers/providertest"
)

// With the built-in configuration, every key set and no Ollama running,
// doctor passes: the local agent, which no mode seats, is noted and is no
// problem. The table fits 100 columns.
func TestDoctorPassesWithTheBuiltInConfigWithoutOllama(t *testing.T) {
	t.Parallel()
	isolate(t)
	models := providertest.Reply{Models: []string{"gpt-6.1-sol", "gpt-5.3-codex", "claude-sonnet-5-5", "gemini-3.8-flash"}}
	oai := providertest.OpenAI(t, func(providertest.Request) providertest.Reply { return models })
	ant := providertest.Anthropic(t, func(providertest.Request) providertest.Reply { return models })
	gem := providertest.Gemini(t, func(providertest.Request) providertest.Reply { return models })
	for k, v := range map[string]string{"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "GEMINI_API_KEY": "k",
		"OPENAI_BASE_URL": oai.URL, "ANTHROPIC_BASE_URL": ant.URL, "GOOGLE_GEMINI_BASE_URL": gem.URL} {
		setenv(t, k, v)
	}
	setenv(t, "PARLEY_PROVIDERS_OLLAMA_BASE_URL", "http://127.0.0.1:1/v1") // nobody listens there
	code, out, errOut := runCLI(t, "", "doctor")
	if code != 0 || !strings.Contains(out, "all 8 agents the modes use are ok") || !strings.Contains(out, "- local ") || strings.Contains(out, "\n✗") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > 100 {
			t.Errorf("a line of %d columns: %q", ansi.StringWidth(l), l)
		}
	}
}

// `parley --demo doctor` with no key set reports the demo agents as the
// ones in use and passes; the same doctor without --demo fails on the
// missing keys (issue 43, item 12). Through the real binary, where it was
// seen.
func TestDemoDoctorReportsTheDemoAgents(t *testing.T) {
	t.Parallel()
	isolate(t)
	run := func(args ...string) (int, string) {
		cmd := parleyCommand(t, nil, args...)
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := run("--demo", "doctor")
	if code != 0 || !strings.Contains(out, "--demo: every agent answers with the offline demo agents") ||
		!strings.Contains(out, "offline demo") || strings.Contains(out, "missing: set") || strings.Contains(out, "worst case") {
		t.Fatalf("--demo doctor: exit %d\n%s", code, out)
	}
	if code, out := run("doctor"); code == 0 || !strings.Contains(out, "missing: set") {
		t.Fatalf("doctor without keys or --demo: exit %d\n%s", code, out)
	}
}
