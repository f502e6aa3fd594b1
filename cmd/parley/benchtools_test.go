package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// parley bench --tools runs the paired condition through the command line:
// the JSON report has the tools: conditions and their McNemar pair, every
// item's with-tools votes carry tool calls and evidence ids, and bench list
// names the run's tools.
func TestBenchToolsIsAPairedCondition(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	db := filepath.Join(dir, "b.db")
	code, out, errOut := runCLI(t, "", "--db", db, "--demo", "--json", "bench", "builtin:arith", "--n", "4", "--tools", "files")
	var rep struct {
		Conditions  []struct{ Name string }
		Comparisons []struct{ A, B string }
		Items       []struct {
			Rounds [][]struct {
				ToolCalls []string `json:"tool_calls"`
			}
			WithTools [][]struct {
				ToolCalls []string `json:"tool_calls"`
				Evidence  []string `json:"evidence"`
			} `json:"with_tools"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Items) != 4 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	var names []string
	for _, c := range rep.Conditions {
		names = append(names, c.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "tools:verdict_r3") {
		t.Errorf("conditions %v", names)
	}
	paired := false
	for _, c := range rep.Comparisons {
		paired = paired || c.A == "tools:verdict_r3" && c.B == "verdict_r3"
	}
	if !paired {
		t.Error("no McNemar pair of verdict_r3 and tools:verdict_r3")
	}
	for i, it := range rep.Items {
		if len(it.WithTools) == 0 || len(it.WithTools[0][0].ToolCalls) == 0 || len(it.WithTools[0][0].Evidence) == 0 || len(it.Rounds[0][0].ToolCalls) != 0 {
			t.Errorf("item %d: %+v", i, it)
		}
	}
	if code, out, _ := runCLI(t, "", "--db", db, "bench", "list"); code != 0 || !strings.Contains(out, "tools files") {
		t.Errorf("bench list: exit %d\n%s", code, out)
	}
}
