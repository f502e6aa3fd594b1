package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// councilVendorOf is the default members' vendors: gemini, chatgpt, claude;
// the default chairman is claude's model (the highest output price).
var councilVendorOf = map[string]string{"gemini": "gemini", "openai": "chatgpt", "anthropic": "claude"}

var councilAnswerRE = regexp.MustCompile(`--- (Response [A-Z]) ---\nANSWER-(\w+)`)

// councilFakes points the three vendors at fakes; answer(member, stage,
// req) decides, member being "chairman" for stage 3.
func councilFakes(t *testing.T, answer func(member string, stage int, r providertest.Request) providertest.Reply) map[string]*providertest.Server {
	t.Helper()
	srv := councilServers(t, answer)
	setenv(t, "OPENAI_API_KEY", "k1")
	setenv(t, "ANTHROPIC_API_KEY", "k2")
	setenv(t, "GEMINI_API_KEY", "k3")
	setenv(t, "OPENAI_BASE_URL", srv["openai"].URL)
	setenv(t, "ANTHROPIC_BASE_URL", srv["anthropic"].URL)
	setenv(t, "GOOGLE_GEMINI_BASE_URL", srv["gemini"].URL)
	return srv
}

// councilServers starts the three vendors' fakes (see councilFakes).
func councilServers(t *testing.T, answer func(member string, stage int, r providertest.Request) providertest.Reply) map[string]*providertest.Server {
	t.Helper()
	srv := map[string]*providertest.Server{}
	for vendor, member := range councilVendorOf {
		h := func(r providertest.Request) providertest.Reply {
			switch {
			case strings.Contains(r.System, "impartial judge"):
				return answer(member, 2, r)
			case strings.HasPrefix(r.System, "You are Chairman"):
				return answer("chairman", 3, r)
			}
			return answer(member, 1, r)
		}
		switch vendor {
		case "openai":
			srv[vendor] = providertest.OpenAI(t, h)
		case "anthropic":
			srv[vendor] = providertest.Anthropic(t, h)
		default:
			srv[vendor] = providertest.Gemini(t, h)
		}
	}
	return srv
}

// councilTag marks each member's answer with a word the ranking prompts do
// not mask (a member's name would be masked).
var councilTag = map[string]string{"gemini": "Alpha", "chatgpt": "Bravo", "claude": "Charlie"}

// councilScript: answers tagged by member; every ranker puts the members
// in prefer's order (those it is shown).
func councilScript(prefer []string, chair providertest.Reply) func(string, int, providertest.Request) providertest.Reply {
	return func(member string, stage int, r providertest.Request) providertest.Reply {
		use := providers.Usage{InputTokens: 100, OutputTokens: 10}
		switch stage {
		case 1:
			return providertest.Reply{Text: "ANSWER-" + councilTag[member] + " use a queue", Usage: use}
		case 2:
			labels := map[string]string{}
			for _, m := range councilAnswerRE.FindAllStringSubmatch(r.Messages[0].Content, -1) {
				for name, tag := range councilTag {
					if tag == m[2] {
						labels[name] = m[1]
					}
				}
			}
			var order []string
			for _, p := range prefer {
				if l, ok := labels[p]; ok {
					order = append(order, fmt.Sprintf("%q", l))
				}
			}
			return providertest.Reply{Text: `{"evaluation":"ok","ranking":[` + strings.Join(order, ",") + `]}`, Usage: use}
		}
		return chair
	}
}

func TestCouncilCmdJSONOverFakes(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	councilFakes(t, councilScript([]string{"claude", "gemini", "chatgpt"}, providertest.Reply{Text: "Use NATS.", Usage: providers.Usage{InputTokens: 300, OutputTokens: 30}}))
	code, out, stderr := runCLI(t, "", "--db", filepath.Join(dir, "c.db"), "--json", "council", "kafka or nats?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("not one JSON document (%v):\n%s", err, out)
	}
	keys := func(m map[string]any) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		return strings.Join(sortStrings(ks), ",")
	}
	if got := keys(doc); got != "aggregate,answers,chairman,cost_usd,question,rankings,session_id,usage" {
		t.Fatalf("top-level keys %s", got)
	}
	answers := doc["answers"].([]any)
	if len(answers) != 3 || keys(answers[0].(map[string]any)) != "member,model,status,text" || answers[1].(map[string]any)["member"] != "chatgpt" {
		t.Fatalf("answers %v", answers)
	}
	for _, r := range doc["rankings"].([]any) {
		rk := r.(map[string]any)
		if keys(rk) != "labels,order,ranker,valid" || rk["valid"] != true || len(rk["labels"].(map[string]any)) != 2 {
			t.Errorf("ranking %v", rk)
		}
		for _, m := range rk["labels"].(map[string]any) {
			if m == rk["ranker"] {
				t.Errorf("%v was shown its own answer", m)
			}
		}
	}
	agg, _ := json.Marshal(doc["aggregate"])
	// claude first twice (2 points), gemini: 0 from chatgpt + 1 from claude, chatgpt last twice.
	if string(agg) != `[{"borda":2,"mean_rank":1,"member":"claude"},{"borda":1,"mean_rank":1.5,"member":"gemini"},{"borda":0,"mean_rank":2,"member":"chatgpt"}]` {
		t.Errorf("aggregate %s", agg)
	}
	chair := doc["chairman"].(map[string]any)
	if keys(chair) != "member,model,status,text" || chair["status"] != "complete" || chair["text"] != "Use NATS." || chair["member"] != "claude" || chair["model"] != "claude-sonnet-5-5" {
		t.Errorf("chairman %v", chair)
	}
	if u := doc["usage"].(map[string]any); u["input_tokens"].(float64) != 900 || doc["cost_usd"].(float64) <= 0 {
		t.Errorf("usage %v cost %v", u, doc["cost_usd"])
	}
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func TestCouncilCmdChairmanFailingShowsTheFallbackAndExitsOne(t *testing.T) {
	t.Parallel()
	isolate(t)
	councilFakes(t, councilScript([]string{"chatgpt", "gemini", "claude"}, providertest.Reply{Status: 400, Text: "model retired"}))
	code, out, stderr := runCLI(t, "", "council", "q?")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitRuntime, out, stderr)
	}
	for _, want := range []string{"Stage 1 · answers", "Stage 2 · anonymous peer ranking", "COUNCIL: the chairman failed", "model retired",
		"FALLBACK (not the chairman's answer): the top-ranked answer, by ChatGPT", "ANSWER-Bravo use a queue"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "fallback: the top-ranked answer, by chatgpt") {
		t.Errorf("stderr %q", stderr)
	}
	code, out, _ = runCLI(t, "", "--json", "council", "q?")
	var doc struct {
		Chairman map[string]string
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != cli.ExitRuntime {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if c := doc.Chairman; c["status"] != "failed" || c["fallback"] != "chatgpt" || !strings.Contains(c["error"], "model retired") {
		t.Errorf("chairman %v", c)
	}
}

func TestCouncilCmdUsageErrors(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--demo", "council", "--members", "gemini", "q?"}, "at least two"},
		{[]string{"--demo", "council", "--members", "gemini,nobody", "q?"}, `unknown agent "nobody"`},
		{[]string{"--demo", "council", "--chairman", "nobody", "q?"}, `--chairman: unknown agent "nobody"`},
		{[]string{"--demo", "council"}, "a question is required"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
}

// The demo plays a council offline; the session is saved, forks at a stage
// and re-runs there with other members; exports carry every stage.
func TestCouncilDemoIsStoredForkedAndRerun(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	db := filepath.Join(dir, "d.db")
	code, out, stderr := runCLI(t, "", "--demo", "--db", db, "council", "--members", "gemini,chatgpt,claude,codex", "kafka or nats?")
	if code != 0 || !strings.Contains(out, "Stage 3 · chairman (Chairman, demo/claude-sonnet-5-5)\n**Chairman** on *kafka or nats?*") || !strings.Contains(out, "Codex") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, stderr)
	}
	if n := strings.Count(out, "offline demo answer from Chairman"); n != 1 { // streamed once, not printed again
		t.Fatalf("the chairman's answer is printed %d times:\n%s", n, out)
	}
	list := listSessions(t, "--db", db)
	if len(list) != 1 || list[0].Mode != "council" || list[0].Turns != 1+4+4+1+1 { // question, answers, rankings, chairman, outcome
		t.Fatalf("sessions %+v", list)
	}
	id := list[0].ID
	code, md, _ := runCLI(t, "", "--db", db, "sessions", "export", id, "--format", "md")
	if code != 0 || !strings.Contains(md, "Chairman") || !strings.Contains(md, "Ranking, best first: 1.") {
		t.Fatalf("export md (exit %d):\n%s", code, md)
	}
	// Fork after stage 1 (question + four answers) and run the council there again.
	code, forkOut, stderr := runCLI(t, "", "--db", db, "sessions", "fork", id, "--at", "5")
	if code != 0 {
		t.Fatalf("fork: exit %d: %s", code, stderr)
	}
	fork := strings.TrimSpace(forkOut)
	code, js, stderr := runCLI(t, "", "--demo", "--db", db, "--json", "council", "--session", fork, "--members", "gemini,claude", "and now, with two?")
	if code != 0 {
		t.Fatalf("re-run on the fork: exit %d: %s", code, stderr)
	}
	var doc struct {
		Answers  []map[string]string
		Rankings []struct{ Valid bool }
		Chairman map[string]string
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Answers) != 2 || doc.Chairman["status"] != "complete" {
		t.Fatalf("%v: %s", err, js)
	}
	for _, r := range doc.Rankings { // the demo agents rank by the schema they are asked for
		if !r.Valid {
			t.Fatalf("a demo ranking is invalid: %s", js)
		}
	}
	list = listSessions(t, "--db", db)
	if len(list) != 2 || list[0].Turns != 5+1+2+2+1+1 { // the fork's five, then question, answers, rankings, chairman, outcome
		t.Fatalf("after the re-run: %+v", list)
	}
}

func TestCouncilCmdJSONLStreamsTheCouncilEvents(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "--db", filepath.Join(dir, "j.db"), "--jsonl", "council", "kafka or nats?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, `{"type":"`) {
			t.Fatalf("not an event line: %s", line)
		}
		var ev struct{ Type string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		count[ev.Type]++
	}
	if count["council_answers_collected"] != 1 || count["council_ranking_cast"] != 3 || count["council_ranked"] != 1 || count["council_decided"] != 1 {
		t.Fatalf("event counts %v", count)
	}
}
