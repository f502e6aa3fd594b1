package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

func TestMagiAdjustPresetsAndModel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model, preset, configPreset string
		want                              []string // melchior, balthasar, casper as provider/model
	}{
		{"default", "", "", "", []string{"openai/gpt-6.1-sol", "anthropic/claude-sonnet-5-5", "gemini/gemini-3.8-flash"}},
		{"rotate", "", "rotate", "", []string{"anthropic/claude-sonnet-5-5", "gemini/gemini-3.8-flash", "openai/gpt-6.1-sol"}},
		{"rotate2", "", "rotate2", "", []string{"gemini/gemini-3.8-flash", "openai/gpt-6.1-sol", "anthropic/claude-sonnet-5-5"}},
		{"config preset applies", "", "", "rotate", []string{"anthropic/claude-sonnet-5-5", "gemini/gemini-3.8-flash", "openai/gpt-6.1-sol"}},
		{"flag beats config", "", "default", "rotate2", []string{"openai/gpt-6.1-sol", "anthropic/claude-sonnet-5-5", "gemini/gemini-3.8-flash"}},
		{"gpt model", "gpt-5-mini", "", "", []string{"openai/gpt-5-mini", "openai/gpt-5-mini", "openai/gpt-5-mini"}},
		{"o-series", "o3-mini", "", "", []string{"openai/o3-mini", "openai/o3-mini", "openai/o3-mini"}},
		{"claude model", "claude-haiku-4-5", "rotate", "", []string{"anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4-5"}},
		{"gemini model", "gemini-2.5-pro", "", "", []string{"gemini/gemini-2.5-pro", "gemini/gemini-2.5-pro", "gemini/gemini-2.5-pro"}},
		{"provider/model", "ollama/gpt-oss:20b", "", "", []string{"ollama/gpt-oss:20b", "ollama/gpt-oss:20b", "ollama/gpt-oss:20b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := loadConfig(t, "")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Modes.Magi.Preset = c.configPreset
			chatgpt, _ := cfg.Agent("chatgpt")
			if err := magiAdjust(c.model, c.preset)(cfg); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, name := range []string{"melchior", "balthasar", "casper"} {
				a, _ := cfg.Agent(name)
				got = append(got, a.Provider+"/"+a.Model)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if after, _ := cfg.Agent("chatgpt"); after.Provider != chatgpt.Provider || after.Model != chatgpt.Model {
				t.Errorf("a non-MAGI agent changed: %+v", after)
			}
			melchior, _ := cfg.Agent("melchior")
			if !strings.Contains(melchior.Persona, "scientist") {
				t.Errorf("the persona must stay with MELCHIOR, got %q", melchior.Persona)
			}
			if err := cfg.Validate(); err != nil {
				t.Errorf("adjusted config is invalid: %v", err)
			}
		})
	}
}

func TestMagiAdjustRefusesWhatItCannotResolve(t *testing.T) {
	t.Parallel()
	cases := []struct{ model, configPreset, want string }{
		{"llama3", "", "cannot tell its provider"},
		{"nope/some-model", "", `no provider "nope"`},
		{"ollama/", "", `no provider "ollama"`},
		{"", "sideways", "modes.magi.preset"},
	}
	for _, c := range cases {
		cfg, err := loadConfig(t, "")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Modes.Magi.Preset = c.configPreset
		err = magiAdjust(c.model, "")(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("model %q preset %q: err %v, want %q", c.model, c.configPreset, err, c.want)
		}
	}
	isolate(t)
	code, _, stderr := runCLI(t, "", "--demo", "magi", "-p", "upside-down", "q")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--preset") {
		t.Errorf("bad preset: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "--demo", "magi", "-m", "mystery-model", "q")
	if code != cli.ExitUsage || !strings.Contains(stderr, "provider/model") {
		t.Errorf("bad model: exit %d, %q", code, stderr)
	}
}

// magiFakeVendors starts the three vendors' fakes and points the env at them;
// answer decides each reply from the member named in the system prompt.
func magiFakeVendors(t *testing.T, answer func(member string, round int) providertest.Reply) map[string]*providertest.Server {
	t.Helper()
	h := func(r providertest.Request) providertest.Reply {
		member := "?"
		for _, m := range []string{"MELCHIOR", "BALTHASAR", "CASPER"} {
			if strings.HasPrefix(r.System, "You are "+m) {
				member = m
			}
		}
		round := 1
		if n := len(r.Messages); n > 0 {
			last := r.Messages[n-1].Content
			switch {
			case strings.Contains(last, "Round 3 of 3"):
				round = 3
			case strings.Contains(last, "Round 2 of 3"):
				round = 2
			}
		}
		return answer(member, round)
	}
	srv := map[string]*providertest.Server{
		"openai": providertest.OpenAI(t, h), "anthropic": providertest.Anthropic(t, h), "gemini": providertest.Gemini(t, h),
	}
	setenv(t, "OPENAI_API_KEY", "k1")
	setenv(t, "ANTHROPIC_API_KEY", "k2")
	setenv(t, "GEMINI_API_KEY", "k3")
	setenv(t, "OPENAI_BASE_URL", srv["openai"].URL)
	setenv(t, "ANTHROPIC_BASE_URL", srv["anthropic"].URL)
	setenv(t, "GOOGLE_GEMINI_BASE_URL", srv["gemini"].URL)
	return srv
}

func magiFakeVote(vote, reasoning, summary string) providertest.Reply {
	b, _ := json.Marshal(map[string]string{"vote": vote, "reasoning": reasoning, "summary": summary})
	return providertest.Reply{Text: string(b), Usage: providers.Usage{InputTokens: 1000, OutputTokens: 100, CachedTokens: 400}}
}

// fridayCouncil answers "Should we ship on Friday?": MELCHIOR rejects,
// CASPER approves, BALTHASAR approves in round 1 and then rejects with
// reasoning.
func fridayCouncil(reasoning string) func(member string, round int) providertest.Reply {
	return func(member string, round int) providertest.Reply {
		switch {
		case member == "CASPER":
			return magiFakeVote("approve", "Shipping now captures the launch window before competitors.", "Ship it.")
		case member == "BALTHASAR" && round == 1:
			return magiFakeVote("approve", "Users asked for this feature loudly.", "Users want it.")
		case member == "BALTHASAR":
			return magiFakeVote("reject", reasoning, "Not on a Friday.")
		}
		return magiFakeVote("reject", "Friday deploys leave nobody on call; rollback untested.", "Not on a Friday.")
	}
}

func TestMagiHeadlessAgainstFakes(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	// BALTHASAR joins MELCHIOR with its words only: the audit flags it.
	magiFakeVendors(t, fridayCouncil("Friday deploys leave nobody on call; rollback untested."))
	db := filepath.Join(dir, "magi.db")
	code, out, stderr := runCLI(t, "", "--db", db, "magi", "-v", "Should we ship on Friday?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"MAGI council: Should we ship on Friday?",
		"MELCHIOR (openai/gpt-6.1-sol) · BALTHASAR (anthropic/claude-sonnet-5-5) · CASPER (gemini/gemini-3.8-flash)",
		"Round 1 · independent", "Round 2 · deliberation", "Round 3 · final vote",
		"  BALTHASAR  REJECT   Not on a Friday.",
		"Shipping now captures the launch window", // -v shows reasoning
		"BALTHASAR  round 1→2  approve → reject  CONFORMITY",
		"║  MAGI VERDICT: REJECTED  ║",
		"after round 3: 1 approve, 2 reject, 0 abstain, 0 invalid",
		"3,000 in (1,200 cached) · 300 out",
		"total", "9 calls", "9,000 in (3,600 cached) · 900 out",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// gpt-6.1-sol: 3 × (600 fresh × 2 + 400 cached × 0.10 + 100 × 10) / 1e6
	if !strings.Contains(out, "$0.0067") {
		t.Errorf("MELCHIOR's cost is not shown as $0.0067:\n%s", out)
	}

	// Every vote and the verdict are saved as rows with their round.
	_, info, entries := onlySession(t, db)
	var rows []string
	for _, en := range entries {
		if en.Kind == transcript.KindVote || en.Kind == transcript.KindVerdict {
			rows = append(rows, fmt.Sprintf("%s %s r%d %s", en.Kind, en.Speaker, en.Round, en.Vote))
		}
	}
	want := "vote melchior r1 reject|vote balthasar r1 approve|vote casper r1 approve|" +
		"vote melchior r2 reject|vote balthasar r2 reject|vote casper r2 approve|" +
		"vote melchior r3 reject|vote balthasar r3 reject|vote casper r3 approve|verdict system r3 REJECTED"
	if got := strings.Join(rows, "|"); got != want || info.Mode != "magi" {
		t.Errorf("saved rows (mode %s):\n%s\nwant\n%s", info.Mode, got, want)
	}
}

func TestMagiPresetAndModelReachTheRightVendors(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := magiFakeVendors(t, func(string, int) providertest.Reply {
		return magiFakeVote("approve", "Fine.", "ok")
	})
	code, _, stderr := runCLI(t, "", "magi", "-1", "-p", "rotate", "q?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantVendor := map[string]string{"openai": "CASPER", "anthropic": "MELCHIOR", "gemini": "BALTHASAR"}
	for vendor, member := range wantVendor {
		reqs := srv[vendor].Requests()
		if len(reqs) != 1 || !strings.HasPrefix(reqs[0].System, "You are "+member) {
			t.Errorf("%s: %d requests, want one from %s", vendor, len(reqs), member)
		}
	}
	code, _, stderr = runCLI(t, "", "magi", "-1", "-m", "gpt-5-mini", "q?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	reqs := srv["openai"].Requests()[1:]
	if len(reqs) != 3 {
		t.Fatalf("-m gpt-5-mini: openai got %d requests, want 3", len(reqs))
	}
	for _, r := range reqs {
		if r.Model != "gpt-5-mini" {
			t.Errorf("model %q, want gpt-5-mini", r.Model)
		}
	}
}

func TestMagiDemoJSONIsOneCompleteObject(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "--db", filepath.Join(dir, "d.db"), "--json", "magi", "Should we ship on Friday?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Question string
		Verdict  string
		Rounds   [][]map[string]any
		Flips    []map[string]any
		Usage    map[string]float64
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout:\n%s", out)
	}
	if got.Question != "Should we ship on Friday?" || len(got.Rounds) != 3 || got.Flips == nil || got.Usage["prompt_tokens"] == 0 {
		t.Fatalf("object = %+v", got)
	}
	var final []verdict.Vote
	for r, round := range got.Rounds {
		if len(round) != 3 {
			t.Fatalf("round %d has %d votes", r+1, len(round))
		}
		for _, v := range round {
			for _, k := range []string{"agent", "provider", "model", "round", "vote", "reasoning", "summary", "valid", "error", "usage"} {
				if _, ok := v[k]; !ok {
					t.Errorf("vote lacks %q: %v", k, v)
				}
			}
			if r == 2 {
				final = append(final, verdict.Vote(v["vote"].(string)))
			}
		}
	}
	if want := string(verdict.Decide(final)); got.Verdict != want {
		t.Errorf("verdict %s, want %s from %v", got.Verdict, want, final)
	}
}

func TestMagiEveryMemberFailingExitsOne(t *testing.T) {
	t.Parallel()
	isolate(t)
	magiFakeVendors(t, func(string, int) providertest.Reply {
		return providertest.Reply{Status: 400, Text: "model not found"}
	})
	code, out, stderr := runCLI(t, "", "magi", "q?")
	if code != cli.ExitRuntime || !strings.Contains(stderr, "every MAGI member failed") || !strings.Contains(out, "INCOMPLETE") {
		t.Errorf("exit %d\nout %s\nerr %s", code, out, stderr)
	}
	if !strings.Contains(out, "model not found") {
		t.Errorf("the providers' error is not shown:\n%s", out)
	}
}

func TestMagiModelAndPresetTogetherIsAUsageError(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "magi", "-m", "gpt-5", "-p", "rotate", "q?")
	if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, "--model") || !strings.Contains(stderr, "--preset") {
		t.Errorf("exit %d\nout %q\nerr %q", code, out, stderr)
	}
}

// A council that ran but decided nothing exits 3: scripts tell it from a
// verdict (0) and from a failure (1). Two valid approvals beside an
// unreadable vote are a verdict (SPEC §6; issue 43: the box said APPROVED
// and the command exited 3): the box, stderr and the exit code agree.
func TestMagiNoDecisionExitsThree(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		invalid map[string]bool // members whose every answer is unreadable
		verdict string
		exit    int
	}{
		{"decided", nil, "APPROVED", cli.ExitOK},
		{"invalid vote under a majority", map[string]bool{"CASPER": true}, "APPROVED", cli.ExitOK},
		{"incomplete", map[string]bool{"CASPER": true, "BALTHASAR": true}, "INCOMPLETE", cli.ExitNoDecision},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := buildParley(t) // seen through the real binary: it runs as a process
			t.Parallel()
			isolate(t)
			magiFakeVendors(t, func(member string, _ int) providertest.Reply {
				if tc.invalid[member] {
					return providertest.Reply{Text: "I would rather not vote today."}
				}
				return magiFakeVote("approve", "It is fine.", "Fine.")
			})
			code, out, stderr := runBinary(t, bin, "", nil, "magi", "-1", "q?")
			if code != tc.exit || !strings.Contains(out, "MAGI VERDICT: "+tc.verdict) {
				t.Fatalf("exit %d, want %d\nout %s\nerr %s", code, tc.exit, out, stderr)
			}
			if tc.exit == cli.ExitNoDecision && (!strings.Contains(stderr, "no decision: the verdict is INCOMPLETE") || !strings.Contains(stderr, "CASPER round 1")) {
				t.Errorf("stderr does not say why there is no decision: %s", stderr)
			}
			if tc.exit == cli.ExitOK && strings.Contains(stderr, "no decision") {
				t.Errorf("a verdict is also called no decision: %s", stderr)
			}
		})
	}
}
