package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// agentProject writes a small project under dir and a secret beside it.
func agentProject(t *testing.T, dir string) string {
	t.Helper()
	root := filepath.Join(dir, "project")
	for name, body := range map[string]string{
		"project/README.md": "# Greeter\nPrints a greeting.\n",
		"project/main.go":   "package main\n\nfunc main() { println(\"hi\") }\n",
		"secret.txt":        "TOP SECRET\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// agentFake points the openai provider at a scripted fake and makes codex
// the agent of the agent mode.
func agentFake(t *testing.T, dir string, replies ...providertest.Reply) *providertest.Server {
	t.Helper()
	srv := providertest.OpenAI(t, providertest.Sequence(replies...))
	setenv(t, "PARLEY_TEST_OPENAI_KEY", "k1")
	yaml := fmt.Sprintf(`providers:
  openai:
    type: openai
    base_url: %s
    api_key_env: PARLEY_TEST_OPENAI_KEY
    max_retries: 0
modes:
  agent:
    agent: codex
`, srv.URL)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv
}

func textReply(s string) providertest.Reply {
	return providertest.Reply{Text: s, Usage: providers.Usage{InputTokens: 200, OutputTokens: 30}}
}

func TestAgentCmdDemoExplainsTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	root := agentProject(t, dir)
	chdir(t, root)
	code, out, errOut := runCLI(t, "", "agent", "--demo", "explain this folder")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "read `README.md`") || !strings.Contains(out, "explain this folder") {
		t.Errorf("answer: %q", out)
	}
	for _, want := range []string{"→ list_file . (recursive) — 2 entries", "→ read_file README.md — 29 bytes, 2 lines", "— 3 steps, 2 tool calls"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out, "→") {
		t.Errorf("tool lines reached stdout: %q", out)
	}
}

func TestAgentCmdOverFakeHoldsTheJail(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	root := agentProject(t, dir)
	srv := agentFake(t, dir,
		textReply("<read_file><path>../secret.txt</path></read_file>"),
		textReply("<read_file><path>"+filepath.Join(dir, "secret.txt")+"</path></read_file>"),
		textReply("<read_file><path>main.go</path>"),
		textReply("<read_file><path>main.go</path></read_file>"),
		textReply("<complete><summary>It prints **hi**.</summary></complete>"),
	)
	code, out, errOut := runCLI(t, "", "agent", "--dir", root, "what does it print?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "It prints **hi**.\n" {
		t.Errorf("stdout = %q", out)
	}
	for _, want := range []string{
		"→ read_file ../secret.txt — error: path is outside the workspace",
		"— error: path is outside the workspace: \"" + filepath.Join(dir, "secret.txt") + "\" is an absolute path",
		"! reply had no usable tool call (<read_file> is not closed",
		"→ read_file main.go — 44 bytes, 3 lines",
		"— 5 steps, 3 tool calls",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls, want 5", len(reqs))
	}
	for _, r := range reqs {
		if r.Model != "gpt-5.3-codex" {
			t.Errorf("model %q, want codex's", r.Model)
		}
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "TOP SECRET") {
				t.Fatal("the secret reached the model")
			}
		}
	}
}

func TestAgentCmdJSON(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	root := agentProject(t, dir)
	agentFake(t, dir,
		textReply("<list_file><path>.</path><recursive>false</recursive></list_file>"),
		textReply("<complete><summary>Two files.</summary></complete>"),
	)
	code, out, errOut := runCLI(t, "what is here?\n", "agent", "--json", "--dir", root, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		Type      string          `json:"type"`
		Agent     string          `json:"agent"`
		Status    string          `json:"status"`
		Summary   string          `json:"summary"`
		Steps     int             `json:"steps"`
		ToolCalls int             `json:"tool_calls"`
		Usage     providers.Usage `json:"usage"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Type != "summary" || last.Status != "ok" || last.Summary != "Two files." || last.Steps != 2 || last.ToolCalls != 1 || last.Agent != "codex" || last.Usage.InputTokens != 400 {
		t.Fatalf("summary line = %+v", last)
	}
	if !strings.HasPrefix(lines[len(lines)-1], `{"type":"summary"`) {
		t.Errorf("type is not first: %s", lines[len(lines)-1])
	}
	// One document: the outcome with the tool calls it made, no event lines.
	var doc struct {
		Calls []struct {
			Tool   string `json:"tool"`
			Result string `json:"result"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &doc); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || len(doc.Calls) != 1 || doc.Calls[0].Tool != "list_file" || !strings.Contains(doc.Calls[0].Result, "main.go (44 bytes)") {
		t.Errorf("want one document with the list_file call:\n%s", out)
	}
}

func TestAgentCmdProviderFailureExitsOne(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	root := agentProject(t, dir)
	agentFake(t, dir, textReply("<list_file><path>.</path></list_file>"), providertest.Reply{Status: 500, Text: "upstream exploded"})
	code, out, errOut := runCLI(t, "", "agent", "--dir", root, "explain")
	if code != 1 || out != "" || !strings.Contains(errOut, "upstream exploded") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestAgentCmdStepLimit(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	root := agentProject(t, dir)
	srv := agentFake(t, dir, textReply("<list_file><path>.</path></list_file>"))
	code, _, errOut := runCLI(t, "", "agent", "--dir", root, "--steps", "2", "explain")
	if code != 1 || !strings.Contains(errOut, "used all 2 steps without calling complete") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d calls, want 2", n)
	}
}

// Every run is saved in the seed's JSON shape beside the database (or to
// --save FILE), owner-only, and stderr says where; sessions export --format
// json gives the same document.
func TestAgentCmdSavesTheConversation(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	root := agentProject(t, dir)
	agentFake(t, dir, textReply("<list_file><path>.</path><recursive>true</recursive></list_file>"),
		textReply("<complete><summary>It prints hi.</summary></complete>"))
	code, _, errOut := runCLI(t, "", "agent", "--dir", root, "explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	info, _ := savedSession(t)
	path := filepath.Join(dir, "data", "parley", "agent-"+info.ID+".json")
	if !strings.Contains(errOut, "conversation saved to "+path) {
		t.Fatalf("stderr does not say where the conversation went:\n%s", errOut)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v, %v", fi, err)
	}
	saved, _ := os.ReadFile(path)
	var doc struct {
		ConversationID string `json:"conversation_id"`
		Messages       []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				Tool       string         `json:"tool"`
				Parameters map[string]any `json:"parameters"`
				Result     string         `json:"result"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(saved, &doc); err != nil || doc.ConversationID != info.ID || len(doc.Messages) != 3 {
		t.Fatalf("saved %v:\n%s", err, saved)
	}
	call := doc.Messages[1].ToolCalls
	if doc.Messages[1].Role != "assistant" || len(call) != 1 || call[0].Parameters["recursive"] != true || !strings.Contains(call[0].Result, "main.go") {
		t.Fatalf("the list_file call is not on its reply:\n%s", saved)
	}
	code, exported, errOut := runCLI(t, "", "sessions", "export", info.ID, "--format", "json")
	if code != 0 || exported != string(saved) {
		t.Fatalf("export (exit %d, %s) differs from the saved file:\n%s\nvs\n%s", code, errOut, exported, saved)
	}

	other := filepath.Join(dir, "run.json")
	agentFake(t, dir, textReply("<complete><summary>Hi.</summary></complete>"))
	code, _, errOut = runCLI(t, "", "agent", "--dir", root, "--save", other, "again")
	if fi, err := os.Stat(other); code != 0 || err != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(errOut, "conversation saved to "+other) {
		t.Fatalf("--save: exit %d, %v, stderr %s", code, err, errOut)
	}
}

// A slip the model repeats is shown once with its count; the third in a
// row ends the run like the step limit: exit 1, the reason on stderr.
func TestAgentCmdRepeatedSlip(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	root := agentProject(t, dir)
	slip := textReply("<complete><answer>It greets.</answer></complete>")
	srv := agentFake(t, dir, slip, slip, textReply("<list_file><path>.</path></list_file>"), slip, slip, slip,
		textReply("<complete><summary>never asked</summary></complete>"))
	code, out, errOut := runCLI(t, "", "agent", "--dir", root, "explain")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n := strings.Count(errOut, "asked to retry"); n != 2 || !strings.Contains(errOut, "asked to retry (2 times)\n") {
		t.Errorf("each streak of the slip should be one line with its count:\n%s", errOut)
	}
	if !strings.Contains(errOut, "stopped after 6 of 20 steps without calling complete: the same tool-protocol error 3 times in a row") {
		t.Errorf("stderr does not say why the run stopped:\n%s", errOut)
	}
	if n := len(srv.Requests()); n != 6 {
		t.Fatalf("%d calls, want 6", n)
	}
}

func TestAgentCmdUsageErrors(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	for _, args := range [][]string{
		{"agent", "--demo"},
		{"agent", "--demo", "--dir", filepath.Join(dir, "missing"), "q"},
		{"agent", "--demo", "--agent", "nobody", "q"},
		{"agent", "--demo", "--steps", "-1", "q"},
	} {
		if code, _, errOut := runCLI(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
