package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/providertest"
)

// A session exported on one machine and imported on another exports the
// same bytes; a broken file is refused (exit 2) and nothing is written.
func TestSessionsImportRoundTrip(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if code, _, errOut := runCLI(t, "", "--demo", "ask", "@all should we cache prompts?"); code != 0 {
		t.Fatalf("ask: %d %s", code, errOut)
	}
	id := listSessions(t)[0].ID
	exported := filepath.Join(dir, "s.json")
	if code, _, errOut := runCLI(t, "", "sessions", "export", id, "--format", "json", "-o", exported); code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	want, _ := os.ReadFile(exported)
	other := filepath.Join(dir, "other.db")
	code, out, errOut := runCLI(t, "", "--db", other, "sessions", "import", exported)
	if code != 0 || strings.TrimSpace(out) != id || !strings.Contains(errOut, "imported") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	code, got, _ := runCLI(t, "", "--db", other, "sessions", "export", id, "--format", "json")
	if code != 0 || got != string(want) {
		t.Fatalf("export after import differs:\n%s\n---\n%s", got, want)
	}
	// Importing it again is refused; --new-id keeps a copy.
	if code, _, errOut := runCLI(t, "", "--db", other, "sessions", "import", exported); code != cli.ExitUsage || !strings.Contains(errOut, "already exists") {
		t.Fatalf("second import: %d %q", code, errOut)
	}
	if code, out, _ := runCLI(t, "", "--db", other, "sessions", "import", "--new-id", exported); code != 0 || strings.TrimSpace(out) == id {
		t.Fatalf("--new-id: %d %q", code, out)
	}
	// A mode this program lacks is refused by name, and nothing is written.
	other2 := filepath.Join(dir, "other2.db")
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, bytes.Replace(want, []byte(`"mode": "mention"`), []byte(`"mode": "telepathy"`), 1), 0o600)
	code, _, errOut = runCLI(t, "", "--db", other2, "sessions", "import", unknown)
	if code != cli.ExitUsage || !strings.Contains(errOut, `unknown mode "telepathy" (one of mention, alternate, talk, magi, agent, council)`) {
		t.Fatalf("unknown mode: %d %q", code, errOut)
	}
	if _, err := os.Stat(other2); err == nil {
		t.Fatal("a refused import created a database")
	}
	// A file from a newer Parley is refused and nothing is written.
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, bytes.Replace(want, []byte(`"format_version": 1`), []byte(`"format_version": 7`), 1), 0o600)
	fresh := filepath.Join(dir, "fresh.db")
	code, _, errOut = runCLI(t, "", "--db", fresh, "sessions", "import", newer)
	if code != cli.ExitUsage || !strings.Contains(errOut, "format version 7") || !strings.Contains(errOut, "upgrade parley") {
		t.Fatalf("newer file: %d %q", code, errOut)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Fatal("a refused import created a database")
	}
}

// alternate --steps 100 against fake vendors: the prompt of step 100 is at
// most twice the prompt of step 10, and Anthropic requests carry a cache
// breakpoint on the stable prefix.
func TestAlternateSteps100PromptBounded(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	var mu sync.Mutex
	var prompts []int
	var anthropicBodies []providertest.Request
	answer := strings.Repeat("The loop backs off exponentially and caps the wait; errors stay typed. ", 32) // ~600 tokens
	reply := func(vendor string) func(providertest.Request) providertest.Reply {
		return func(r providertest.Request) providertest.Reply {
			mu.Lock()
			defer mu.Unlock()
			prompts = append(prompts, demo.EstimateRequestTokens(providers.Request{System: r.System, Messages: r.Messages}))
			if vendor == "anthropic" {
				anthropicBodies = append(anthropicBodies, r)
			}
			return providertest.Reply{Text: fmt.Sprintf("%s step %d. %s", vendor, len(prompts), answer), Usage: providers.Usage{InputTokens: 100, OutputTokens: 600}}
		}
	}
	openai := providertest.OpenAI(t, reply("openai"))
	anthropic := providertest.Anthropic(t, reply("anthropic"))
	setenv(t, "PARLEY_TEST_OPENAI_KEY", "k1")
	setenv(t, "PARLEY_TEST_ANTHROPIC_KEY", "k2")
	yaml := fmt.Sprintf("providers:\n  openai: {type: openai, base_url: %s, api_key_env: PARLEY_TEST_OPENAI_KEY, max_retries: 0}\n  anthropic: {type: anthropic, base_url: %s, api_key_env: PARLEY_TEST_ANTHROPIC_KEY, max_retries: 0}\n", openai.URL, anthropic.URL)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "", "--json", "alternate", "write a retry loop in Go", "--steps", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(prompts) != 102 { // the start turn asks both, then one call a step
		t.Fatalf("%d calls", len(prompts))
	}
	step10, step100 := prompts[11], prompts[101]
	t.Logf("prompt tokens: step 10 %d, step 100 %d (ratio %.2f)", step10, step100, float64(step100)/float64(step10))
	if step100 > 2*step10 {
		t.Fatalf("step 100 prompt %d tokens > 2 × step 10's %d", step100, step10)
	}
	last := anthropicBodies[len(anthropicBodies)-1]
	if !strings.Contains(last.Messages[0].Content, "[Summary up to turn") {
		t.Fatalf("late prompt does not start with the summaries: %.200q", last.Messages[0].Content)
	}
	breakpoints := 0
	for _, m := range last.JSON["messages"].([]any) {
		for _, block := range m.(map[string]any)["content"].([]any) {
			if _, ok := block.(map[string]any)["cache_control"]; ok {
				breakpoints++
			}
		}
	}
	if breakpoints != 2 {
		t.Fatalf("%d cache breakpoints in the messages, want 2 (stable prefix and end)", breakpoints)
	}
}

// Per-mode budgets come from the file or the environment, as the README says.
func TestContextBudgetsConfigurable(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte("context:\n  budget_tokens: 20000\n  summarizer: mc\n  magi: {budget_tokens: 4000, summary_tokens: 500}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	setenv(t, "PARLEY_CONTEXT_ALTERNATE_BUDGET_TOKENS", "6000")
	cfg, err := loadConfig(t, "parley.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(cfg.ContextBudget("mention").Total, cfg.ContextBudget("alternate").Total, cfg.ContextBudget("magi"), cfg.Context.Summarizer)
	if want := "20000 6000 {4000 500 3500 1750}mc"; got != want {
		t.Fatalf("budgets %s, want %s", got, want)
	}
	os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte("context:\n  summarizer: nobody\n"), 0o600)
	if _, err := loadConfig(t, "parley.yaml"); err == nil || !strings.Contains(err.Error(), "context.summarizer") {
		t.Fatalf("unknown summariser: %v", err)
	}
}
