package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
)

// config check refuses values past the upper bounds, naming file, line and
// key, and no error quotes more than 80 characters of a value.
func TestConfigCheckRefusesValuesPastTheBounds(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	huge := strings.Repeat("You are thorough. ", 60000) // ~1 MB persona
	long := strings.Repeat("q", 5000)
	cases := []struct{ name, yaml, want string }{
		{"rounds", "modes:\n  talk:\n    rounds: 1000000000\n", "parley.yaml:3: modes.talk.rounds: 1000000000 is over 100"},
		{"max steps", "modes:\n  agent:\n    max_steps: 99999\n", "parley.yaml:3: modes.agent.max_steps: 99999 is over 1000"},
		{"persona", "agents:\n  - name: gemini\n    persona: \"" + huge + "\"\n", "parley.yaml:3: agents[0].persona: is 1080000 bytes, at most 32768"},
		{"budget", "context:\n  budget_tokens: 900000000\n", "parley.yaml:2: context.budget_tokens: 900000000 is over 2000000"},
		{"max tokens", "agents:\n  - name: gemini\n    max_tokens: 50000000\n", "parley.yaml:3: agents[0].max_tokens: 50000000 is over 1000000"},
		{"rate limit", "serve:\n  rate_limit:\n    per_minute: 2000000\n", "parley.yaml:3: serve.rate_limit.per_minute: requests a minute (burst: at once), 0 (the default) or more: 2000000 is over 1000000"},
		{"rate burst", "serve:\n  rate_limit: {burst: -3}\n", "serve.rate_limit.burst: requests a minute (burst: at once), 0 (the default) or more: -3 is negative"},
		{"trusted proxy", "serve:\n  trusted_proxies: [10.0.0.0/8, proxy.example]\n", "serve.trusted_proxies[1]: \"proxy.example\" is neither a CIDR"},
		{"long bad value", "default_mode: " + long + "\n", "parley.yaml:1: default_mode: unknown mode \"" + strings.Repeat("q", 80) + "\"… (5000 bytes)"},
		{"long bad number", "modes:\n  talk:\n    rounds: " + long + "\n", "parley.yaml:3: modes.talk.rounds: \"" + strings.Repeat("q", 80) + "\"… (5000 bytes) is not a whole number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(c.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, "", "config", "check")
			if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, out %q\nerr %.400q\nwant %q", code, out, errOut, c.want)
			}
			if len(errOut) > 400 {
				t.Fatalf("the error is %d bytes: %.200q…", len(errOut), errOut)
			}
		})
	}
	t.Run("env value", func(t *testing.T) {
		os.Remove(filepath.Join(dir, "parley.yaml"))
		setenv(t, "PARLEY_MODES_TALK_ROUNDS", long)
		code, _, errOut := runCLI(t, "", "config", "check")
		if code != cli.ExitUsage || !strings.Contains(errOut, "… (5000 bytes)") || len(errOut) > 400 {
			t.Fatalf("exit %d, err %.400q (%d bytes)", code, errOut, len(errOut))
		}
	})
}

// The flags that repeat calls are bounded like their configuration keys.
func TestRoundAndStepFlagsAreBounded(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, args := range [][]string{
		{"--demo", "talk", "--topic", "x", "--rounds", "1000000000"},
		{"--demo", "alternate", "x", "--steps", "1000000000"},
		{"--demo", "agent", "--steps", "1000000000", "x"},
	} {
		code, _, errOut := runCLI(t, "", args...)
		if code != cli.ExitUsage || !strings.Contains(errOut, "must be") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// --rate-limit and --rate-burst are checked as serve.rate_limit is, before
// the server listens.
func TestRateFlagsAreBounded(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, c := range []struct{ flag, value, want string }{
		{"--rate-limit", "1000001", "--rate-limit: 1000001 is over 1000000"},
		{"--rate-burst", "-1", "--rate-burst: -1 is negative"},
	} {
		code, out, errOut := runCLI(t, "", "--demo", "serve", "--addr", "127.0.0.1:0", c.flag, c.value)
		if code != cli.ExitUsage || strings.Contains(out, "listening") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %s: exit %d, out %q, err %q", c.flag, c.value, code, out, errOut)
		}
	}
}
