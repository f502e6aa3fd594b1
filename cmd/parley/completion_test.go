package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/modes"
)

// Shell completion offers Parley's own words: saved session ids (with
// their titles), modes, MAGI presets and agent names.
func TestCompletionOffersIDsModesPresetsAndAgents(t *testing.T) {
	t.Parallel()
	isolate(t)
	if code, _, errOut := runCLI(t, "", "--demo", "ask", "@gemini which queue is simpler?"); code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errOut)
	}
	list := listSessions(t)
	if len(list) != 1 {
		t.Fatalf("sessions: %+v", list)
	}
	id := list[0].ID
	complete := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, "", append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("__complete %q: exit %d: %s", args, code, errOut)
		}
		return out
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--resume", ""}, []string{id + "\tmention · @gemini which queue is simpler?"}},
		{[]string{"sessions", "show", ""}, []string{id}},
		{[]string{"ask", "--session", ""}, []string{id}},
		{[]string{"--mode", ""}, []string{"mention", "alternate", "talk", "magi", "agent", "council"}},
		{[]string{"magi", "--preset", ""}, []string{"default", "rotate", "rotate2"}},
		{[]string{"talk", "--mc", ""}, []string{"gemini", "chatgpt", "claude", "mc"}},
		{[]string{"talk", "--a", ""}, []string{"gemini", "chatgpt", "claude", "codex", "mc"}},
		{[]string{"talk", "--b", "c"}, []string{"chatgpt", "claude", "codex"}},
		{[]string{"talk", "-b", ""}, []string{"gemini", "chatgpt", "claude", "codex", "mc"}},
		{[]string{"agent", "--agent", ""}, []string{"claude", "codex"}},
		{[]string{"council", "--members", "gemini,"}, []string{"gemini,claude", "gemini,codex"}},
		{[]string{"help", ""}, []string{"console", "modes", "ask"}},
	} {
		out := complete(c.args...)
		for _, w := range c.want {
			if !strings.Contains(out, w+"\n") && !strings.Contains(out, w+"\t") {
				t.Errorf("complete %q lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// `parley completion bash --help` says the script needs the bash-completion
// package, and the README names the error seen without it (issue 43, item
// 12: cobra's V2 script calls _get_comp_words_by_ref too).
func TestBashCompletionSaysItNeedsBashCompletion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "", "completion", "bash", "--help")
	if code != 0 || !strings.Contains(out, "depends on the 'bash-completion' package") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, script, _ := runCLI(t, "", "completion", "bash")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || strings.Contains(script, "_get_comp_words_by_ref") != strings.Contains(string(readme), "_get_comp_words_by_ref: command not found") {
		t.Fatalf("the script's need of _get_comp_words_by_ref and the README disagree (exit %d)", code)
	}
}

// Every process builds the whole command tree before it runs one command,
// completions included. Looking each completed flag up with LocalFlags
// built and sorted a new flag set for every command: 1,754 allocations a
// tree, 1,060 without (issue 50, round 5). Counted, not timed.
func TestBuildingTheCommandTreeAllocatesLittle(t *testing.T) {
	f := testFactory(modes.All(), factory.NewMap(nil), nil, io.Discard, io.Discard)
	if n := testing.AllocsPerRun(10, func() { newRootCmd(f) }); n > 1300 {
		t.Errorf("building the command tree made %.0f allocations, want at most 1,300 (1,060 in round 5)", n)
	}
}
