package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// isolate gives a test that runs parley in process its own environment
// (HOME, XDG dirs, the cache; no key, endpoint or PARLEY_* of the machine)
// and working directory, handed to the command through the factory, so it
// can run in parallel with the others: nothing of the process changes.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{
		"HOME":             dir,
		"XDG_CONFIG_HOME":  filepath.Join(dir, "config"),
		"XDG_DATA_HOME":    filepath.Join(dir, "data"),
		"PARLEY_CACHE_DIR": filepath.Join(dir, "cache"), // never the user's kept model catalogue
	}
	for _, k := range []string{"PATH", "TMPDIR", "LANG", "TERM", "CI"} {
		if v, ok := os.LookupEnv(k); ok {
			vars[k] = v
		}
	}
	testEnvs.Store(t.Name(), &testEnv{env: factory.NewMap(vars), dir: dir})
	t.Cleanup(func() { testEnvs.Delete(t.Name()) })
	return dir
}

// testEnvs are the environments isolate gave, by test name.
var testEnvs sync.Map

type testEnv struct {
	env *factory.Map
	dir string
}

// envOf is the environment of t, or of the test t runs under (nil: the
// test did not call isolate and uses the process's own).
func envOf(t testing.TB) *testEnv {
	for name := t.Name(); ; {
		if e, ok := testEnvs.Load(name); ok {
			return e.(*testEnv)
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			return nil
		}
		name = name[:i]
	}
}

// setenv sets a variable for the parley that t runs: in its own
// environment after isolate, else in the process (t.Setenv).
func setenv(t *testing.T, key, value string) {
	t.Helper()
	if e := envOf(t); e != nil {
		_ = e.env.Setenv(key, value)
		return
	}
	t.Setenv(key, value)
}

// chdir makes dir the working directory of the parley that t runs: its
// own after isolate, else the process's (t.Chdir).
func chdir(t *testing.T, dir string) {
	t.Helper()
	if e := envOf(t); e != nil {
		e.dir = dir
		return
	}
	t.Chdir(dir)
}

// getenv reads a variable of the environment t's parley runs with.
func getenv(t testing.TB, key string) string {
	if e := envOf(t); e != nil {
		return e.env.Getenv(key)
	}
	return os.Getenv(key)
}

// runCLI runs parley in-process and returns its exit code and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWith(t, modes.All(), stdin, args...)
}

// runWith is runCLI for a program that knows the modes known.
func runWith(t *testing.T, known config.ModeList, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = executeWith(t, context.Background(), known, args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestConfigErrorsExitTwoNamingFileAndKey(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{"--config", filepath.Join(dir, "nope.yaml"), "--demo", "ask", "@all hi"}, []string{"nope.yaml", "cannot read"}},
		{"yaml syntax", []string{"--config", write("bad.yaml", "modes:\n  mention: [unclosed\n"), "--demo", "ask", "@all hi"}, []string{"bad.yaml", "invalid YAML", "line"}},
		{"unknown agent in a mode", []string{"--config", write("agent.yaml", "modes:\n  magi:\n    agents: [melchior, balthazar, casper]\n"), "--demo", "ask", "@all hi"},
			[]string{"agent.yaml:3: modes.magi.agents[1]", `unknown agent "balthazar"`}},
		{"unknown key", []string{"--config", write("key.yaml", "agnets: []\n"), "--demo", "ask", "@all hi"}, []string{"key.yaml:1: agnets: unknown key (did you mean agents?)"}},
		{"unknown nested key", []string{"--config", write("nested.yaml", "providers:\n  openai:\n    type: openai\n    base_urll: http://x\n"), "--demo", "ask", "@all hi"},
			[]string{"nested.yaml:4: providers.openai.base_urll: unknown key (did you mean base_url?)"}},
		{"not a number", []string{"--config", write("rounds.yaml", "modes:\n  talk:\n    rounds: many\n"), "--demo", "ask", "@all hi"},
			[]string{"rounds.yaml:3: modes.talk.rounds: \"many\" is not a whole number"}},
		{"bad duration", []string{"--config", write("timeout.yaml", "providers:\n  openai:\n    type: openai\n    timeout: 5 minutes\n"), "--demo", "ask", "@all hi"},
			[]string{"timeout.yaml:4: providers.openai.timeout: \"5 minutes\" is not a duration"}},
		{"bad type in a list", []string{"--config", write("temp.yaml", "agents:\n  - name: x\n    provider: openai\n    model: gpt-5\n    temperature: hot\n"), "--demo", "ask", "@x hi"},
			[]string{"temp.yaml:5: agents[0].temperature: \"hot\" is not a number"}},
		{"unknown agent key", []string{"--config", write("agentkey.yaml", "agents:\n  - name: claude\n    modle: claude-opus-4-1\n"), "--demo", "ask", "@all hi"},
			[]string{"agentkey.yaml:3: agents[0].modle: unknown key (did you mean model?)"}},
		{"bad value in a merged agent", []string{"--config", write("merged.yaml", "agents:\n  - name: claude\n    provider: nowhere\n"), "--demo", "ask", "@all hi"},
			[]string{"merged.yaml:3: agents[0].provider: unknown provider \"nowhere\""}},
		{"agent without a name", []string{"--config", write("noname.yaml", "agents:\n  - provider: openai\n"), "--demo", "ask", "@all hi"},
			[]string{"noname.yaml:2: agents[0].name: missing"}},
		{"bad provider type", []string{"--config", write("prov.yaml", "providers:\n  openai:\n    type: openia\n"), "--demo", "ask", "@all hi"}, []string{"prov.yaml", "providers.openai.type", "openia"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", c.args...)
			if code != cli.ExitUsage {
				t.Fatalf("exit %d, want 2; stderr: %s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Fatalf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

func TestParleyYAMLInWorkingDirIsFound(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte("modes:\n  mention:\n    agents: [claude]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "--demo", "ask", "@all hi")
	if code != 0 || !strings.HasPrefix(out, "[Claude]: ") || strings.Contains(out, "[Gemini]") {
		t.Fatalf("exit %d out %q err %q", code, out, stderr)
	}
}

func TestAskDemoPrintsRepliesInConfigOrder(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "ask", "@chatgpt @gemini what is a monad?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	gi, ci := strings.Index(out, "[Gemini]: "), strings.Index(out, "[ChatGPT]: ")
	if gi != 0 || ci <= gi {
		t.Fatalf("want Gemini then ChatGPT:\n%s", out)
	}
	if !strings.Contains(stderr, "tokens") {
		t.Fatalf("no token summary on stderr: %q", stderr)
	}
}

func TestAskFromStdinAndJSON(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "@gemini hi from a pipe\n", "--demo", "--json", "ask", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// --json is one document: the exchange's result, not its events.
	var doc struct {
		Session, Mode, Question string
		Turns                   []struct {
			Turn                        int
			Kind, Speaker, Text, Status string
			Finished                    string
		}
		Usage struct {
			InputTokens int `json:"input_tokens"`
		}
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("not one JSON document (%v):\n%s", err, out)
	}
	if doc.Session == "" || doc.Mode != "mention" || doc.Question != "@gemini hi from a pipe" || len(doc.Turns) != 2 || doc.Usage.InputTokens == 0 {
		t.Fatalf("document = %+v", doc)
	}
	if r := doc.Turns[1]; r.Turn != 2 || r.Speaker != "gemini" || r.Status != "complete" || r.Text == "" || r.Finished == "" {
		t.Errorf("the answer = %+v", r)
	}
	// --jsonl is the event stream, and a turn that starts has no finish time.
	code, out, _ = runCLI(t, "", "--demo", "--jsonl", "ask", "@gemini hi")
	if code != 0 || !strings.Contains(out, `{"type":"turn_started"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, `{"type":"turn_started"`) && strings.Contains(l, `"finished"`) {
			t.Errorf("turn_started carries a finish time: %s", l)
		}
	}
}

func TestAskUnknownAgentExitsTwo(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "ask", "@bard hi")
	if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, "@gemini") {
		t.Fatalf("exit %d out %q err %q", code, out, stderr)
	}
}

func TestNoKeyAndNoDemoSaysWhatToSet(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, _, stderr := runCLI(t, "", "ask", "@all hi")
	if code != cli.ExitUsage {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "--demo"} {
		if !strings.Contains(stderr, w) {
			t.Fatalf("stderr %q lacks %s", stderr, w)
		}
	}
}

func TestMissingKeyForOneAgentOthersWork(t *testing.T) {
	t.Parallel()
	isolate(t)
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // refused at once: no network needed
	// Asked by name, Gemini is Gemini: no stand-in answers for it; the line
	// is refused before anything is sent, naming the variable to set.
	code, out, stderr := runCLI(t, "", "ask", "@gemini hi")
	if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, "Gemini has no key: set GEMINI_API_KEY (or ask @chatgpt, @codex") {
		t.Fatalf("exit %d out %q err %q", code, out, stderr)
	}
}

func TestReplWithPipe(t *testing.T) {
	t.Parallel()
	isolate(t)
	in := "we need a queue\n@all kafka or nats?\n@nobody hi\n/mode magi\nexit\n@gemini never asked\n"
	code, out, stderr := runCLI(t, in, "--demo", "repl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(out, "> ") || strings.Count(out, "[Gemini]: ") != 1 || strings.Count(out, "[ChatGPT]: ") != 1 {
		t.Fatalf("out:\n%s", out)
	}
	if strings.Contains(out, "never asked") || !strings.Contains(stderr, "unknown agent @nobody") || !strings.Contains(stderr, "mode: magi") {
		t.Fatalf("out %q\nerr %q", out, stderr)
	}
}

// A .env that does not parse would set none of its keys; it is reported,
// naming the file and the line, instead of being ignored.
func TestBrokenDotEnvIsAConfigError(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("OPENAI_API_KEY=sk-test\nthis is not an assignment\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "--demo", "ask", "@all hi")
	if code != cli.ExitUsage || !strings.Contains(stderr, ".env") || !strings.Contains(stderr, "this is not an assignment") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// Every kind of command-line mistake exits 2, an unknown command included.
func TestUsageMistakesExitTwo(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, args := range [][]string{{"foo"}, {"--bogus"}, {"ask"}, {"version", "extra"}, {"sessions", "foo"}, {"sessions", "show"}} {
		if code, _, stderr := runCLI(t, "", args...); code != cli.ExitUsage {
			t.Errorf("parley %v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, _ := runCLI(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "parley ") {
		t.Fatalf("exit %d out %q", code, out)
	}
	// --version says the same, not cobra's bare "dev".
	code, flag, _ := runCLI(t, "", "--version")
	if code != 0 || flag != out {
		t.Errorf("--version: exit %d %q, want %q", code, flag, out)
	}
}

func TestEnvOverridesConfig(t *testing.T) {
	t.Parallel()
	isolate(t)
	setenv(t, "PARLEY_DEFAULT_MODE", "telepathy")
	code, _, stderr := runCLI(t, "", "--demo", "ask", "@all hi")
	// The variable is blamed, with its value, never the embedded file.
	if code != cli.ExitUsage || !strings.Contains(stderr, `environment variable PARLEY_DEFAULT_MODE="telepathy" (default_mode): unknown mode "telepathy"`) ||
		strings.Contains(stderr, "embedded") {
		t.Fatalf("exit %d err %q", code, stderr)
	}
	setenv(t, "PARLEY_DEFAULT_MODE", "")
	setenv(t, "PARLEY_MODES_TALK_ROUNDS", "many")
	code, _, stderr = runCLI(t, "", "--demo", "ask", "@all hi")
	if code != cli.ExitUsage || !strings.Contains(stderr, `environment variable PARLEY_MODES_TALK_ROUNDS="many" (modes.talk.rounds): expected a whole number`) {
		t.Fatalf("exit %d err %q", code, stderr)
	}
	setenv(t, "PARLEY_MODES_TALK_ROUNDS", "")
	// An unknown PARLEY_ variable is a warning with the nearest name; the run goes on.
	setenv(t, "PARLEY_DEFAUT_MODE", "magi")
	code, _, stderr = runCLI(t, "", "--demo", "ask", "@gemini hi")
	if code != 0 || !strings.Contains(stderr, "parley: warning: PARLEY_DEFAUT_MODE is not a Parley setting (did you mean PARLEY_DEFAULT_MODE?); ignored") {
		t.Fatalf("exit %d err %q", code, stderr)
	}
	setenv(t, "PARLEY_DEFAUT_MODE", "")
	setenv(t, "PARLEY_DEFAULT_MODE", "")
	setenv(t, "PARLEY_CONTEXT_BUDGET_TOKENS", "8000")
	cfg, err := loadConfig(t, "")
	if err != nil || cfg.Context.BudgetTokens != 8000 {
		t.Fatalf("env override not applied: %v %+v", err, cfg.Context)
	}
}

// In mention mode an agent with tools: true (claude, in the default
// configuration) reads files before answering; ask shows its tool calls on
// stderr and only its answer on stdout.
func TestAskWithToolsShowsCallsAndAnswer(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Rocket\nLaunch control software.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := buildParley(t) // the real binary in the folder: its tools read the process's working directory
	code, out, stderr := runBinary(t, bin, "", []string{fastDemo}, "--demo", "ask", "@claude read the code in this folder and explain it")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, "<list_file>") || strings.Contains(out, "<complete>") || !strings.HasPrefix(out, "[Claude]: ") || !strings.Contains(out, "README.md") {
		t.Fatalf("stdout should hold only the answer:\n%s", out)
	}
	if !strings.Contains(stderr, "[claude] → list_file .") || !strings.Contains(stderr, "[claude] → read_file README.md") {
		t.Fatalf("stderr should list the tool calls:\n%s", stderr)
	}
	// A question about nothing in particular gets a plain answer, no tools.
	code, out, stderr = runBinary(t, bin, "", []string{fastDemo}, "--demo", "ask", "@claude what is a monad?")
	if code != 0 || strings.Contains(stderr, "list_file") || !strings.Contains(out, "monad") {
		t.Fatalf("exit %d\nout %s\nerr %s", code, out, stderr)
	}
}

// Without a terminal (a script, CI) the console refuses with a hint at the
// headless commands instead of a low-level TTY error.
func TestConsoleWithoutTerminalPointsToHeadless(t *testing.T) {
	t.Parallel()
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		f.Close()
		t.Skip("a terminal is attached to this test run")
	}
	isolate(t)
	code, _, stderr := runCLI(t, "", "--demo")
	if code != cli.ExitUsage || !strings.Contains(stderr, "needs a terminal") || !strings.Contains(stderr, "parley ask, repl, agent, alternate") ||
		!strings.Contains(stderr, "council") || !strings.Contains(stderr, "serve") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
