package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// unreachableGemini is a providers entry for fakeVendors' extra YAML: a
// Gemini with a key at an address that refuses at once, so its agents fail
// (without a key they would stand in on the keyed provider).
const unreachableGemini = "  gemini:\n    type: gemini\n    base_url: http://127.0.0.1:1\n    api_key_env: FAKE_GEMINI_KEY\n    max_retries: 0\n"

// fakeVendors points the openai and anthropic providers at fake servers
// through ./parley.yaml (gemini keeps no key: its agents stand in on
// openai) and returns the servers and the order in which they were called.
func fakeVendors(t *testing.T, dir string, extraYAML string) (openai, anthropic *providertest.Server, order func() string) {
	t.Helper()
	var mu sync.Mutex
	var who []string
	counts := map[string]int{}
	reply := func(name string) func(providertest.Request) providertest.Reply {
		return func(r providertest.Request) providertest.Reply {
			mu.Lock()
			defer mu.Unlock()
			who = append(who, r.Model)
			counts[name]++
			return providertest.Reply{Text: fmt.Sprintf("%s reply %d to %s.", name, counts[name], r.Model), Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}}
		}
	}
	openai = providertest.OpenAI(t, reply("openai"))
	anthropic = providertest.Anthropic(t, reply("anthropic"))
	setenv(t, "PARLEY_TEST_OPENAI_KEY", "k1")
	setenv(t, "PARLEY_TEST_ANTHROPIC_KEY", "k2")
	setenv(t, "FAKE_GEMINI_KEY", "k3")
	yaml := fmt.Sprintf(`providers:
  openai:
    type: openai
    base_url: %s
    api_key_env: PARLEY_TEST_OPENAI_KEY
    max_retries: 0
  anthropic:
    type: anthropic
    base_url: %s
    api_key_env: PARLEY_TEST_ANTHROPIC_KEY
    max_retries: 0
%s`, openai.URL, anthropic.URL, extraYAML)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return openai, anthropic, func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(who, ",")
	}
}

var alternateLine = regexp.MustCompile(`^\{"status":"ok","turn":\{"user_instruction":("[^"]*"),"codex_output":(null|"(?:[^"\\]|\\.)*"),"claude_output":(null|"(?:[^"\\]|\\.)*"),"responder":"(codex|claude)","next_responder":"(codex|claude)"\}\}$`)

func TestAlternateCmdJSONOverFakes(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	openai, anthropic, order := fakeVendors(t, dir, "")
	code, out, stderr := runCLI(t, "", "--json", "alternate", "write a retry loop", "--steps", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := order(); got != "gpt-5.3-codex,claude-sonnet-5-5,gpt-5.3-codex,claude-sonnet-5-5" {
		t.Fatalf("call order %s", got)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines (start + 2 steps), got:\n%s", out)
	}
	want := [][3]string{ // responder, next, which output is null
		{"claude", "codex", ""},
		{"codex", "claude", "claude"},
		{"claude", "codex", "codex"},
	}
	for i, line := range lines {
		m := alternateLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %d is not the seed's shape: %s", i, line)
		}
		if m[4] != want[i][0] || m[5] != want[i][1] {
			t.Fatalf("line %d: responder %s next %s", i, m[4], m[5])
		}
		codexNull, claudeNull := m[2] == "null", m[3] == "null"
		if (want[i][2] == "codex") != codexNull || (want[i][2] == "claude") != claudeNull {
			t.Fatalf("line %d: wrong null output: %s", i, line)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(lines[0], `"user_instruction":"write a retry loop","codex_output":"openai reply 1 to gpt-5.3-codex."`) {
		t.Fatalf("start line %s", lines[0])
	}
	// The last step: claude saw codex's latest answer.
	reqs := anthropic.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content; got != "[Codex]: openai reply 2 to gpt-5.3-codex." {
		t.Fatalf("claude's last request ends with %q", got)
	}
	if len(openai.Requests()) != 2 || strings.Contains(stderr, "tokens:") {
		t.Fatalf("stderr %q", stderr)
	}
}

func TestAlternateCmdHumanOutputShowsTokensAndSaving(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	fakeVendors(t, dir, "")
	code, out, stderr := runCLI(t, "", "alternate", "--steps", "1", "plan a migration")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"[Codex] (start, 120 tok): openai reply 1 to gpt-5.3-codex.",
		"[Claude] (start, 120 tok): anthropic reply 1 to claude-sonnet-5-5.",
		"[Codex] (step 1, 120 tok): openai reply 2 to gpt-5.3-codex.",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`tokens: 360 used vs [0-9,]+ if both answered every step \(ratio 0\.[0-9]+\); next: Claude`).MatchString(stderr) {
		t.Fatalf("no saving line on stderr: %q", stderr)
	}
}

func TestAlternateCmdDemo(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "alternate", "name a Go CLI")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ci, li := strings.Index(out, "[Codex] (start, "), strings.Index(out, "[Claude] (start, ")
	if ci != 0 || li < ci || !strings.Contains(out, "offline demo") {
		t.Fatalf("out:\n%s", out)
	}
	// The step's outcome, as dialogue.StepSentence wrote it.
	if !strings.Contains(out, "\nSTART: Codex and Claude answered · next: Codex\n") {
		t.Fatalf("no step outcome:\n%s", out)
	}
}

func TestAlternateCmdUsageErrors(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, args := range [][]string{
		{"--demo", "alternate"},
		{"--demo", "alternate", "x", "--steps", "-1"},
		{"--demo", "alternate", "x", "--steps", "many"},
	} {
		code, out, stderr := runCLI(t, "", args...)
		if code != cli.ExitUsage || out != "" {
			t.Fatalf("%v: exit %d out %q err %q", args, code, out, stderr)
		}
	}
}

func TestAlternateCmdFailingAgentExitsOne(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	// claude's place goes to gemini, whose provider cannot be reached.
	fakeVendors(t, dir, unreachableGemini+"modes:\n  alternate:\n    agents: [codex, gemini]\n")
	code, out, _ := runCLI(t, "", "--json", "alternate", "hello", "--steps", "3")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], `{"status":"error","error":"`) || !strings.Contains(lines[0], `"gemini_output":null`) {
		t.Fatalf("want one error line and no further steps:\n%s", out)
	}
}

// savedSession loads the one session saved in the test's database.
func savedSession(t *testing.T) (debate.SessionInfo, []transcript.Entry) {
	t.Helper()
	path, err := store.DefaultPath(func(k string) string { return getenv(t, k) })
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("want one saved session, got %d (%v)", len(list), err)
	}
	info, entries, err := st.Load(context.Background(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return info, entries
}

func TestAlternateCmdResumeContinuesWithTheRightResponder(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	_, _, order := fakeVendors(t, dir, "")
	if code, _, stderr := runCLI(t, "", "--json", "alternate", "design a cache", "--steps", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info, _ := savedSession(t)
	if info.State["alternate.next"] != "claude" {
		t.Fatalf("saved state %v", info.State)
	}
	code, out, stderr := runCLI(t, "", "--json", "alternate", "--session", info.ID[:6], "--steps", "1", "add eviction")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"user_instruction":"add eviction","codex_output":null,"claude_output":"anthropic reply 2`) ||
		!strings.Contains(lines[1], `"claude_output":null,"responder":"codex","next_responder":"claude"`) {
		t.Fatalf("resumed lines:\n%s", out)
	}
	if got := order(); got != "gpt-5.3-codex,claude-sonnet-5-5,gpt-5.3-codex,claude-sonnet-5-5,gpt-5.3-codex" {
		t.Fatalf("calls %s", got)
	}
	info, entries := savedSession(t)
	if info.State["alternate.next"] != "claude" || len(entries) != 7 {
		t.Fatalf("after resume: state %v, %d entries", info.State, len(entries))
	}
}

// A resumed alternation with nothing to do is refused with what to add,
// never a silent exit 0.
func TestAlternateCmdResumeWithNothingToDoSaysWhatToAdd(t *testing.T) {
	t.Parallel()
	isolate(t)
	if code, _, stderr := runCLI(t, "", "--demo", "alternate", "design a cache"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info, entries := savedSession(t)
	code, out, stderr := runCLI(t, "", "--demo", "alternate", "--session", info.ID[:6], "--steps", "0")
	if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, "instruction") || !strings.Contains(stderr, "--steps N") {
		t.Fatalf("exit %d\nout %q\nerr %q", code, out, stderr)
	}
	if _, after := savedSession(t); len(after) != len(entries) {
		t.Fatalf("the refused run changed the session: %d → %d entries", len(entries), len(after))
	}
}
