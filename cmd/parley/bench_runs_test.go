package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type benchItem struct {
	Kind     string `json:"kind"`
	ID       string `json:"id"`
	Question string `json:"question"`
	Gold     string `json:"gold"`
	Rounds   [][]struct {
		Agent      string   `json:"agent"`
		Answer     string   `json:"answer"`
		Confidence float64  `json:"confidence"`
		ChangedBy  *string  `json:"changed_by"`
		ToolCalls  []string `json:"tool_calls"`
		Evidence   []string `json:"evidence"`
	} `json:"rounds"`
	Conditions map[string]struct {
		Answer  string `json:"answer"`
		Correct bool   `json:"correct"`
	} `json:"conditions"`
	Tokens int     `json:"tokens"`
	Cost   float64 `json:"cost_usd"`
}

type benchDoc struct {
	Kind       string `json:"kind"`
	Run        string `json:"run"`
	Questions  int    `json:"questions"`
	Conditions []struct {
		Name    string `json:"name"`
		Correct int    `json:"correct"`
		Lost    *int   `json:"right_answers_lost"`
		Calls   int    `json:"calls"`
	} `json:"conditions"`
	SPRT struct {
		Calls     int `json:"calls"`
		FullCalls int `json:"full_calls"`
	} `json:"sprt"`
	Items []json.RawMessage `json:"items"`
}

func decodeBench(t *testing.T, out string) benchDoc {
	t.Helper()
	var d benchDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return d
}

// --jsonl streams each problem's record as it is scored, then the report;
// the run is stored, and bench list, bench show and bench compare read it
// back problem by problem.
func TestBenchItemsStreamAndRoundTripThroughShowAndCompare(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, errOut := runCLI(t, "", "--demo", "--jsonl", "bench", "builtin:gsm8k", "--n", "6", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 6 items and the report:\n%s", len(lines), out)
	}
	ids := map[string]bool{}
	for _, line := range lines[:6] {
		var it benchItem
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if it.Kind != "item" || !strings.HasPrefix(it.ID, "gsm8k-") || it.Question == "" || it.Gold == "" || len(it.Rounds) != 3 ||
			len(it.Rounds[0]) != 3 || it.Rounds[0][0].ChangedBy == nil || it.Rounds[0][0].ToolCalls == nil || it.Rounds[0][0].Evidence == nil ||
			it.Rounds[0][0].Confidence <= 0 || it.Tokens == 0 {
			t.Errorf("item %s", line)
		}
		if c, ok := it.Conditions["verdict_r3"]; !ok || c.Correct != (c.Answer == it.Gold) {
			t.Errorf("item %s: verdict_r3 %+v against gold %s", it.ID, c, it.Gold)
		}
		ids[it.ID] = true
	}
	first := decodeBench(t, lines[6])
	if first.Kind != "report" || first.Questions != 6 || first.Items != nil || len(ids) != 6 {
		t.Fatalf("report line %s", lines[6])
	}

	// The same problems with both baselines, as a second run.
	code, out, errOut = runCLI(t, "", "--demo", "--json", "bench", "builtin:gsm8k", "--n", "6", "--seed", "3", "--baselines")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	second := decodeBench(t, out)
	names := map[string]bool{}
	for _, c := range second.Conditions {
		names[c.Name] = true
		if c.Lost == nil || c.Calls == 0 {
			t.Errorf("condition %+v", c)
		}
	}
	for _, n := range []string{"self_consistency", "same:majority_r1", "same:verdict_r3", "sprt", "oracle"} {
		if !names[n] {
			t.Errorf("no %s condition in %v", n, names)
		}
	}
	if len(second.Items) != 6 || second.SPRT.Calls == 0 || second.SPRT.Calls > second.SPRT.FullCalls {
		t.Errorf("%d items, sprt %+v", len(second.Items), second.SPRT)
	}

	code, out, _ = runCLI(t, "", "--json", "bench", "list")
	var runs []struct {
		Run    string `json:"run"`
		Done   int    `json:"done"`
		Params struct {
			Total     int    `json:"total"`
			SameModel string `json:"same_model"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 2 || runs[0].Run != second.Run || runs[1].Run != first.Run ||
		runs[0].Done != 6 || runs[0].Params.Total != 6 || runs[0].Params.SameModel != "melchior" {
		t.Fatalf("bench list: exit %d, %v: %s", code, err, out)
	}
	code, out, _ = runCLI(t, "", "bench", "list")
	if code != 0 || !strings.Contains(out, first.Run) || !strings.Contains(out, "6/6") || !strings.Contains(out, "same-model melchior") {
		t.Errorf("bench list:\n%s", out)
	}

	// bench show gives back the run's records exactly as the run printed them.
	code, out, errOut = runCLI(t, "", "--json", "bench", "show", second.Run[:6])
	if code != 0 {
		t.Fatalf("bench show: exit %d: %s", code, errOut)
	}
	shown := decodeBench(t, out)
	if !reflect.DeepEqual(shown.Conditions, second.Conditions) || len(shown.Items) != len(second.Items) {
		t.Fatalf("bench show differs from the run:\n%+v\n%+v", shown.Conditions, second.Conditions)
	}
	for i := range shown.Items {
		var a, b any
		_ = json.Unmarshal(shown.Items[i], &a)
		_ = json.Unmarshal(second.Items[i], &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("item %d: shown %s\nran %s", i, shown.Items[i], second.Items[i])
		}
	}
	code, out, _ = runCLI(t, "", "bench", "show", first.Run)
	if code != 0 || !strings.Contains(out, "verdict_r3") || !strings.Contains(out, "SIMULATION") || !strings.Contains(out, "6 of 6 questions") {
		t.Errorf("bench show text:\n%s", out)
	}

	// bench compare pairs the two runs problem by problem: the council's
	// conditions are the same calls (same seed, same simulation), so
	// nothing differs; the baselines exist only in the second run.
	code, out, errOut = runCLI(t, "", "--json", "bench", "compare", first.Run, second.Run)
	if code != 0 {
		t.Fatalf("bench compare: exit %d: %s", code, errOut)
	}
	var cmp struct {
		Paired     int `json:"paired"`
		Conditions []struct {
			Name         string  `json:"name"`
			Delta        float64 `json:"delta"`
			AOnly, BOnly int
			PValue       float64 `json:"p_value"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || cmp.Paired != 6 || len(cmp.Conditions) != len(first.Conditions) {
		t.Fatalf("compare %v: %s", err, out)
	}
	for _, c := range cmp.Conditions {
		if c.Delta != 0 || c.PValue != 1 {
			t.Errorf("%s differs between runs of the same calls: %+v", c.Name, c)
		}
	}
	code, out, _ = runCLI(t, "", "bench", "compare", first.Run, second.Run)
	if code != 0 || !strings.Contains(out, "6 problems paired") || !strings.Contains(out, "McNemar") {
		t.Errorf("compare text:\n%s", out)
	}
	code, _, errOut = runCLI(t, "", "bench", "show", "ffffffffffff")
	if code != 2 || !strings.Contains(errOut, "no bench run") {
		t.Errorf("unknown run: exit %d: %s", code, errOut)
	}
}

// A published multiple-choice layout runs as easily as GSM8K: TruthfulQA's
// CSV and an MMLU subject file, recognised by their columns, simulated
// under --demo and labelled so; any other CSV is refused naming the column.
func TestBenchRunsKnowledgeCSVsByTheirColumns(t *testing.T) {
	t.Parallel()
	testdata, err := filepath.Abs(filepath.Join("internal", "bench", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	dir := isolate(t)
	fixture := func(name string) string { return filepath.Join(testdata, name) }
	for _, c := range []struct{ file, id string }{{"truthfulqa_fixture.csv", "truthfulqa-0001"}, {filepath.Join("mmlu", "astronomy_test.csv"), "mmlu-astronomy-0001"}} {
		code, out, errOut := runCLI(t, "", "--demo", "--json", "bench", fixture(c.file), "--seed", "4", "--baselines")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errOut)
		}
		var rep struct {
			Simulation string `json:"simulation"`
			Questions  int    `json:"questions"`
			Conditions []struct {
				Name string `json:"name"`
			} `json:"conditions"`
			Items []struct {
				ID         string `json:"id"`
				Question   string `json:"question"`
				Gold       string `json:"gold"`
				Conditions map[string]struct {
					Answer string `json:"answer"`
				} `json:"conditions"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		names := ""
		for _, cond := range rep.Conditions {
			names += cond.Name + " "
		}
		if !strings.HasPrefix(rep.Simulation, "SIMULATION") || rep.Questions < 5 || !strings.Contains(names, "borda_r1") ||
			!strings.Contains(names, "self_consistency") || !strings.Contains(names, "same:verdict_r3") || rep.Items[0].ID != c.id ||
			!strings.Contains(rep.Items[0].Question, "A) ") || len(rep.Items[0].Gold) != 1 || !strings.Contains(errOut, "(skipped)") {
			t.Errorf("%s: %s\n%s", c.file, out, errOut)
		}
		for _, it := range rep.Items {
			if a := it.Conditions["member:melchior"].Answer; len(a) != 1 || a[0] < 'A' || a[0] > 'Z' {
				t.Errorf("%s %s: melchior answered %q, not a letter", c.file, it.ID, a)
			}
		}
	}
	bad := filepath.Join(dir, "scores.csv")
	if err := os.WriteFile(bad, []byte("Question,Best Answer,Correct Answers\nq,a,b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "", "--demo", "bench", bad)
	if code == 0 || !strings.Contains(errOut, `no "Incorrect Answers" column`) || !strings.Contains(errOut, "scores.csv") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// bench show measures a stored run again at the adaptive margin the run
// was measured at (modes.magi.adaptive_margin then), not at today's
// configuration's or the default: the adaptive council's stops agree.
func TestBenchShowReplaysAtTheRunsAdaptiveMargin(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	cfg := filepath.Join(dir, "margin.yaml")
	if err := os.WriteFile(cfg, []byte("modes:\n  magi:\n    adaptive_margin: 0.95\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type adaptive struct {
		Adaptive struct {
			Margin float64        `json:"margin"`
			Stops  map[string]int `json:"stops"`
		} `json:"adaptive"`
		Run string `json:"run"`
	}
	decode := func(out string) adaptive {
		var a adaptive
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return a
	}
	code, out, errOut := runCLI(t, "", "--demo", "--config", cfg, "--json", "bench", "builtin:gsm8k", "--n", "8", "--seed", "5", "--adaptive")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ran := decode(out)
	if ran.Adaptive.Margin != 0.95 {
		t.Fatalf("the run measured at margin %v, want the configured 0.95", ran.Adaptive.Margin)
	}
	code, out, errOut = runCLI(t, "", "--demo", "--json", "bench", "show", ran.Run)
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, errOut)
	}
	shown := decode(out)
	if shown.Adaptive.Margin != 0.95 || !reflect.DeepEqual(shown.Adaptive.Stops, ran.Adaptive.Stops) {
		t.Errorf("bench show: margin %v stops %v, want the run's 0.95 and %v", shown.Adaptive.Margin, shown.Adaptive.Stops, ran.Adaptive.Stops)
	}
}
