package headless

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

var updateMagiGolden = flag.Bool("update-magi", false, "rewrite testdata/magi_json.golden")

func TestMagiJSONGolden(t *testing.T) {
	t.Parallel()
	v := func(agent, provider, model string, round int, vote verdict.Vote, reasoning, errText string, in, out int) verdict.MagiVote {
		return verdict.MagiVote{Agent: agent, Display: strings.ToUpper(agent), Provider: provider, Model: model, Round: round,
			Ballot: verdict.Ballot{Vote: vote, Reasoning: reasoning, Summary: map[bool]string{true: "one line " + agent}[vote.Valid()]},
			Valid:  vote.Valid(), Failed: errText != "" && !strings.HasPrefix(errText, "unreadable"), Error: errText, Attempts: 1,
			Usage: providers.Usage{InputTokens: in, OutputTokens: out, CachedTokens: in / 2}, Cost: float64(in+out) / 1e6}
	}
	res := verdict.MagiResult{
		Question: "Ship on <Friday> & hope?",
		Rounds: [][]verdict.MagiVote{
			{v("melchior", "openai", "gpt-5", 1, verdict.VoteApprove, "Metrics look good.", "", 100, 10),
				v("balthasar", "anthropic", "claude-sonnet-4-6", 1, verdict.VoteInvalid, "", "unreadable vote after a retry: the answer is empty", 200, 0),
				v("casper", "gemini", "gemini-3-flash-preview", 1, verdict.VoteReject, "Too \"safe\".", "", 50, 5)},
			{v("melchior", "openai", "gpt-5", 2, verdict.VoteReject, "Casper is right.", "", 100, 10),
				v("balthasar", "anthropic", "claude-sonnet-4-6", 2, verdict.VoteInvalid, "", "anthropic: server (HTTP 529): overloaded", 0, 0),
				v("casper", "gemini", "gemini-3-flash-preview", 2, verdict.VoteReject, "Still too safe.", "", 50, 5)},
		},
		Flips:   []verdict.Flip{{Agent: "melchior", FromRound: 1, ToRound: 2, From: verdict.VoteApprove, To: verdict.VoteReject, NewWords: 1, Conformity: true}},
		Verdict: verdict.VerdictIncomplete,
		Tally:   map[string]int{"approve": 1, "reject": 1, "abstain": 0, "invalid": 1},
		Usage:   providers.Usage{InputTokens: 350, OutputTokens: 15, CachedTokens: 175},
		Cost:    0.000365,
	}
	var buf bytes.Buffer
	if err := WriteMagiJSON(&buf, "", res); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "magi_json.golden")
	if *updateMagiGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestMagiJSONGolden -update-magi once)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("JSON output differs from %s:\n%s", golden, buf.String())
	}
}

// A reply that merely quotes tool XML, from an agent without tools, is an
// answer like any other and is printed.
func TestAskPrintsQuotedToolXMLFromAgentsWithoutTools(t *testing.T) {
	t.Parallel()
	p := New(Options{Out: &strings.Builder{}, Err: &strings.Builder{}, ToolAgents: map[string]bool{"claude": true}})
	xml := "Use <read_file><path>a.go</path></read_file> to read."
	if p.isToolStep(transcript.Entry{Speaker: "gemini", Status: transcript.StatusComplete, Text: xml}) {
		t.Fatal("gemini has no tools: its text is an answer")
	}
	if !p.isToolStep(transcript.Entry{Speaker: "claude", Status: transcript.StatusComplete, Text: xml}) {
		t.Fatal("claude's tool call is a step")
	}
	done := transcript.Entry{Speaker: "claude", Status: transcript.StatusComplete, Text: xml,
		ToolCalls: []transcript.ToolCall{{Tool: "complete"}}}
	if p.isToolStep(done) {
		t.Fatal("a loop's answer carries its complete call and is printed")
	}
}

func TestTotalsShowUnknownPriceAndReasoning(t *testing.T) {
	t.Parallel()
	u := providers.Usage{InputTokens: 1000, OutputTokens: 1200, ReasoningTokens: 900, PriceUnknown: true}
	if got := TotalsLine(2, "turn", "turns", u, 0); !strings.HasSuffix(got, ", $?") {
		t.Errorf("totals = %q, want an unknown cost shown as $?", got)
	}
	if got := TokenLine(u); got != "1,000 in · 1,200 out (900 reasoning)" {
		t.Errorf("token line = %q", got)
	}
	if got := TotalsLine(1, "turn", "turns", providers.Usage{InputTokens: 1}, 0.5); !strings.HasSuffix(got, "$0.5000") {
		t.Errorf("totals = %q", got)
	}
}
