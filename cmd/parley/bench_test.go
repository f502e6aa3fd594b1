package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/bench"
	"github.com/parleyhq/parley/cmd/parley/internal/bench/gsm8ktest"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// A real parley bench is killed with SIGKILL after some questions are
// stored; --resume then asks only the questions that were not finished,
// and the report covers every question once.
func TestBenchResumeAfterKillRepeatsNoFinishedQuestion(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildParley(t)
	var mu sync.Mutex
	phase := 1
	asked := map[int]map[string]int{1: {}, 2: {}} // phase → question → calls
	question := regexp.MustCompile(`What is the result of [0-9+*-]+`)
	srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		q := question.FindString(r.Messages[0].Content)
		mu.Lock()
		asked[phase][q]++
		mu.Unlock()
		return providertest.Reply{Text: `{"answer":"42","confidence":0.5,"reasoning":"A guess.","summary":"42"}`,
			Usage: providers.Usage{InputTokens: 10, OutputTokens: 5}, Delay: 20 * time.Millisecond}
	})
	dir := t.TempDir()
	db := filepath.Join(dir, "bench.db")
	conf := filepath.Join(dir, "parley.yaml")
	yaml := "agents:\n"
	for _, n := range []string{"melchior", "balthasar", "casper"} {
		yaml += "  - name: " + n + "\n    provider: openai\n    model: gpt-5\n"
	}
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "OPENAI_API_KEY=k",
		"OPENAI_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "PARLEY_DB=")
	cmd := exec.Command(bin, "--config", conf, "--db", db, "bench", "builtin:arith", "--n", "12")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := ""
	// The wait on its output has a deadline: a hung bench ends the scan.
	deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if m := regexp.MustCompile(`bench run ([0-9a-f]+):`).FindStringSubmatch(line); m != nil {
			run = m[1]
		}
		if strings.HasPrefix(line, "bench: 4/12") {
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if run == "" {
		t.Fatal("no run ID printed")
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.BenchResults(context.Background(), run)
	_ = st.Close()
	if err != nil || len(rows) < 4 || len(rows) == 12 {
		t.Fatalf("%d stored questions before the kill (%v)", len(rows), err)
	}
	mu.Lock()
	phase = 2
	mu.Unlock()
	resume := exec.Command(bin, "--config", conf, "--db", db, "--jsonl", "bench", "--resume", run[:6])
	resume.Env = env
	out, err := resume.Output()
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	// --jsonl: the stored problems' records, then the new ones as they
	// finish, each once, then the report.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	seenItems := map[string]int{}
	for i, line := range lines[:len(lines)-1] {
		var it struct{ Kind, ID string }
		if err := json.Unmarshal([]byte(line), &it); err != nil || it.Kind != "item" {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		seenItems[it.ID]++
		if i < len(rows) && it.ID != rows[i].QuestionID {
			t.Errorf("line %d: %s, want the stored %s first", i+1, it.ID, rows[i].QuestionID)
		}
	}
	if len(seenItems) != 12 || len(lines) != 13 {
		t.Errorf("%d item lines for %d problems, want 12 once each", len(lines)-1, len(seenItems))
	}
	out = []byte(lines[len(lines)-1])
	var rep struct {
		Run       string `json:"run"`
		Questions int    `json:"questions"`
		Calls     int    `json:"calls"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Run != run || rep.Questions != 12 || rep.Calls != 12*9 {
		t.Errorf("report: %+v", rep)
	}
	mu.Lock()
	defer mu.Unlock()
	text := map[string]string{}
	for _, q := range bench.Arith(12, 1) {
		text[q.ID] = question.FindString(q.Question)
	}
	for _, row := range rows {
		if n := asked[2][text[row.QuestionID]]; n > 0 || asked[1][text[row.QuestionID]] != 9 {
			t.Errorf("finished question %s: %d calls before the kill, %d after", row.QuestionID, asked[1][text[row.QuestionID]], n)
		}
	}
	if len(asked[2]) != 12-len(rows) {
		t.Errorf("the resumed run asked %d questions, want %d", len(asked[2]), 12-len(rows))
	}
}

func TestBenchDemoPrintsTableJSONAndHTML(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	code, out, errOut := runCLI(t, "", "--demo", "bench", "builtin:arith", "--n", "10")
	if code != 0 || !strings.Contains(out, "member:melchior") || !strings.Contains(out, "verdict_r3") ||
		!strings.Contains(out, "McNemar exact p =") || !strings.Contains(errOut, "bench: 10/10") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	page := filepath.Join(dir, "r.html")
	code, out, errOut = runCLI(t, "", "--demo", "--json", "bench", "builtin:compare", "--n", "8", "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Run        string  `json:"run"`
		Questions  int     `json:"questions"`
		Invalid    *int    `json:"invalid"`
		Cost       float64 `json:"cost_usd"`
		Flips      struct{ RightToWrong, WrongToRight *int }
		Conditions []struct {
			Name     string     `json:"name"`
			Correct  int        `json:"correct"`
			Accuracy float64    `json:"accuracy"`
			CI95     [2]float64 `json:"ci95"`
			Tokens   int        `json:"tokens"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Run == "" || rep.Questions != 8 || rep.Invalid == nil || len(rep.Conditions) != 13 || rep.Conditions[3].Name != "majority_r1" ||
		rep.Conditions[5].Name != "borda_r1" || rep.Conditions[10].Name != "early_stop" || rep.Conditions[11].Name != "sprt" || rep.Conditions[12].Name != "oracle" || rep.Conditions[3].Tokens == 0 || rep.Conditions[3].CI95[1] < rep.Conditions[3].Accuracy {
		t.Errorf("report %+v", rep)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"<script", "https://", "<link"} {
		if strings.Contains(string(html), banned) {
			t.Errorf("the HTML report is not self-contained: it has %q", banned)
		}
	}
	if strings.Count(string(html), "<svg") != 3 {
		t.Errorf("want three inline charts")
	}
}

func TestBenchReportsBadLinesAndRefusesBadFlags(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	set := filepath.Join(dir, "set.jsonl")
	body := "{\"id\":\"a\",\"question\":\"What is the result of 2+3*4?\",\"answer\":\"14\"}\n{oops\n"
	if err := os.WriteFile(set, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "--demo", "bench", set)
	if code != 0 || !strings.Contains(errOut, "set.jsonl:2: not a JSON object") || !strings.Contains(out, "1 of 1 questions") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"--demo", "bench", "builtin:arith", "--rounds", "5"},
		{"--demo", "bench", "builtin:arith", "--members", "chatgpt,claude"},
		{"--demo", "bench", "builtin:nope"},
		{"--demo", "bench"},
		{"--demo", "magi", "--answer-type", "essay", "q"},
	} {
		if code, _, errOut := runCLI(t, "", args...); code == 0 || errOut == "" {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}

func TestMagiAnswerTypeNumberOnTheDemo(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, errOut := runCLI(t, "", "--demo", "--json", "magi", "--answer-type", "number", "--early-stop", "What is the result of 12+30*4+11-10*10?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Verdict, AnswerType, Answer string
		AnswerTypeJSON              string `json:"answer_type"`
		Rounds                      [][]struct {
			Answer     string   `json:"answer"`
			Confidence *float64 `json:"confidence"`
			Valid      bool     `json:"valid"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// 12+120+11-100 = 43; a demo member may slip (left to right: 4,120).
	if res.AnswerTypeJSON != "number" || res.Answer != "43" || res.Verdict != "43" || len(res.Rounds) == 0 ||
		res.Rounds[0][0].Confidence == nil || !res.Rounds[0][0].Valid {
		t.Errorf("%s", out)
	}
}

func TestBenchGSM8KSimulationIsLabelledAndInstallWorks(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	setenv(t, "PARLEY_GSM8K", "")
	code, _, errOut := runCLI(t, "", "bench", "builtin:gsm8k", "--n", "5")
	if code == 0 || !strings.Contains(errOut, bench.GSM8KURL) || !strings.Contains(errOut, "parley bench gsm8k-install") || strings.Contains(errOut, "API key") {
		t.Errorf("without the test set: exit %d\n%s", code, errOut)
	}
	page := filepath.Join(dir, "r.html")
	code, out, errOut := runCLI(t, "", "--demo", "--json", "bench", "builtin:gsm8k", "--n", "12", "--html", page)
	var rep struct {
		Simulation string `json:"simulation"`
		Questions  int    `json:"questions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Questions != 12 ||
		!strings.HasPrefix(rep.Simulation, "SIMULATION: no model was called") || !strings.Contains(rep.Simulation, "generated GSM8K-style problems") {
		t.Fatalf("exit %d, %v: %+v\n%s", code, err, rep, errOut)
	}
	html, _ := os.ReadFile(page)
	if !strings.Contains(string(html), "SIMULATION: no model was called") || !strings.Contains(string(html), "· simulation</h1>") {
		t.Errorf("the HTML report does not say it is a simulation")
	}
	var lines []string
	for i, q := range bench.GSM8KStyle(bench.GSM8KProblems, 9) {
		lines = append(lines, fmt.Sprintf(`{"question": %q, "answer": "Work.\n#### %s"}`, q.Question, q.Answer))
		if i == 0 {
			lines[0] = fmt.Sprintf(`{"question": %q, "answer": "Work.\n#### 1,%s"}`, q.Question, "234")
		}
	}
	file := filepath.Join(dir, "test.jsonl")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	code, out, errOut = runCLI(t, "", "bench", "gsm8k-install", file)
	installed := filepath.Join(dir, "data", "parley", "gsm8k", "test.jsonl.gz")
	if code != 0 || !strings.Contains(out, "1319 problems checked") || !strings.Contains(out, "kept at "+installed) ||
		!strings.Contains(errOut, "is not the published test set") {
		t.Fatalf("install of a valid file that is not the published one: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", "--demo", "bench", "builtin:gsm8k", "--n", "6", "--seed", "4")
	if code != 0 || !strings.Contains(out, "SIMULATION: no model was called") || !strings.Contains(out, "answered GSM8K test problems") || !strings.Contains(out, "6 of 6 questions") {
		t.Errorf("on the installed set: exit %d\n%s%s", code, out, errOut)
	}
}

// modes.magi.adaptive is the bench's default too; --adaptive=false runs full debates.
func TestBenchAdaptiveDefaultsFromTheConfig(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	conf := filepath.Join(dir, "c.yaml")
	os.WriteFile(conf, []byte("modes:\n  magi:\n    adaptive: true\n"), 0o600)
	for _, c := range []struct {
		flags []string
		ran   bool
	}{{nil, true}, {[]string{"--adaptive=false"}, false}} {
		args := append([]string{"--config", conf, "--demo", "--json", "bench", "builtin:gsm8k", "--n", "10"}, c.flags...)
		code, out, errOut := runCLI(t, "", args...)
		var rep struct {
			Calls    int `json:"calls"`
			Adaptive struct {
				Ran        bool `json:"ran"`
				CallsSaved int  `json:"calls_saved"`
			} `json:"adaptive"`
		}
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Adaptive.Ran != c.ran || rep.Adaptive.CallsSaved == 0 {
			t.Fatalf("%v: exit %d, %v, %+v\n%s", c.flags, code, err, rep, errOut)
		}
		if full := rep.Calls == 90; full == c.ran {
			t.Errorf("%v: %d calls", c.flags, rep.Calls)
		}
	}
}

// The published test set, served by a loopback mirror, installs with the
// one command (--url), and --demo on it draws the same problems for the
// same seed, and others for another seed.
func TestBenchGSM8KInstallsTheRealSetAndSamplesBySeed(t *testing.T) {
	real, err := os.ReadFile(gsm8ktest.RealFile(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(real)))
		w.Write(real)
	}))
	defer srv.Close()
	t.Parallel()
	dir := isolate(t)
	setenv(t, "PARLEY_GSM8K", "")
	code, out, errOut := runCLI(t, "", "bench", "gsm8k-install", "--url", srv.URL+"/test.jsonl")
	installed := filepath.Join(dir, "data", "parley", "gsm8k", "test.jsonl.gz")
	if code != 0 || !strings.Contains(out, "1319 problems checked (sha256 "+gsm8ktest.SHA256+") and kept at "+installed) ||
		strings.Contains(errOut, "not the published") || !strings.Contains(errOut, "749,738 of 749,738 bytes") {
		t.Fatalf("install from the mirror: exit %d\n%s%s", code, out, errOut)
	}
	db := filepath.Join(dir, "bench.db")
	drawn := func(seed string) string {
		code, out, errOut := runCLI(t, "", "--demo", "--json", "--db", db, "bench", "builtin:gsm8k", "--n", "8", "--seed", seed)
		var rep struct {
			Run        string `json:"run"`
			Simulation string `json:"simulation"`
			Questions  int    `json:"questions"`
		}
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Questions != 8 || !strings.Contains(rep.Simulation, "answered GSM8K test problems") {
			t.Fatalf("seed %s: exit %d, %v, %+v\n%s", seed, code, err, rep, errOut)
		}
		st, err := store.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		rows, err := st.BenchResults(context.Background(), rep.Run)
		var ids []string
		for _, r := range rows {
			if !regexp.MustCompile(`^gsm8k-\d{4}$`).MatchString(r.QuestionID) {
				t.Errorf("seed %s: id %q", seed, r.QuestionID)
			}
			ids = append(ids, r.QuestionID)
		}
		if err != nil || len(ids) != 8 {
			t.Fatalf("seed %s: stored %v, %v", seed, ids, err)
		}
		return strings.Join(ids, " ")
	}
	first, again, other := drawn("7"), drawn("7"), drawn("8")
	if first != again || first == other {
		t.Errorf("seed 7 drew %s then %s; seed 8 drew %s", first, again, other)
	}
}
