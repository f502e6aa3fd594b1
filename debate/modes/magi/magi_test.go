package magi

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/modes/mention"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/providertest"
)

var magiMarkRE = regexp.MustCompile(`MARK-[a-z]+-R[0-9]`)

// marks lists the opinion markers in text, in order.
func magiMarks(text string) []string { return magiMarkRE.FindAllString(text, -1) }

func TestMagiRoundPromptsCarryExactlyTheDesignedOpinions(t *testing.T) {
	t.Parallel()
	votes := map[string][]verdict.Vote{
		"melchior":  {verdict.VoteApprove, verdict.VoteApprove, verdict.VoteApprove},
		"balthasar": {verdict.VoteReject, verdict.VoteApprove, verdict.VoteApprove},
		"casper":    {verdict.VoteAbstain, verdict.VoteReject, verdict.VoteApprove},
	}
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, votes[agent][round-1]))
	})
	if err := fc.Engine.Submit(context.Background(), "Should we ship on Friday?"); err != nil {
		t.Fatal(err)
	}
	for i, m := range debatetest.MagiMembers {
		reqs := fc.Requests(m.Name)
		if len(reqs) != 3 {
			t.Fatalf("%s got %d requests, want 3", m.Name, len(reqs))
		}
		var others []string
		for j, o := range debatetest.MagiMembers {
			if j != i {
				others = append(others, o.Name)
			}
		}
		r1, r2, r3 := reqs[0], reqs[1], reqs[2]
		// Round 1: the persona, the rules, the question; nobody's opinion.
		if !strings.Contains(r1.System, "You are "+m.Display) || !strings.Contains(r1.System, m.Persona) || !strings.Contains(r1.System, "MAGI council") {
			t.Errorf("%s round-1 system prompt lacks name, persona or rules:\n%s", m.Name, r1.System)
		}
		if len(r1.Messages) != 1 || !strings.Contains(r1.Messages[0].Content, "[Host]: Should we ship on Friday?") {
			t.Errorf("%s round 1 messages = %+v", m.Name, r1.Messages)
		}
		if got := magiMarks(debatetest.MagiAllText(r1.Messages)); len(got) != 0 {
			t.Errorf("%s saw opinions in round 1: %v", m.Name, got)
		}
		// Round 2: own round-1 answer (as its own turn) + exactly the other two's round-1 opinions.
		if len(r2.Messages) != 3 || r2.Messages[1].Role != providers.RoleAssistant {
			t.Fatalf("%s round 2 messages = %+v", m.Name, r2.Messages)
		}
		if got, want := magiMarks(r2.Messages[1].Content), []string{"MARK-" + m.Name + "-R1"}; !magiSame(got, want) {
			t.Errorf("%s round 2 own answer marks %v, want %v", m.Name, got, want)
		}
		want2 := []string{"MARK-" + others[0] + "-R1", "MARK-" + others[1] + "-R1"}
		if got := magiMarks(r2.Messages[2].Content); !magiSame(got, want2) {
			t.Errorf("%s round 2 shows %v, want %v", m.Name, got, want2)
		}
		// Round 3: own round-1 answer + all three round-2 opinions, nothing else.
		if len(r3.Messages) != 3 || r3.Messages[1].Role != providers.RoleAssistant {
			t.Fatalf("%s round 3 messages = %+v", m.Name, r3.Messages)
		}
		if got, want := magiMarks(r3.Messages[1].Content), []string{"MARK-" + m.Name + "-R1"}; !magiSame(got, want) {
			t.Errorf("%s round 3 own answer marks %v, want %v", m.Name, got, want)
		}
		want3 := []string{"MARK-melchior-R2", "MARK-balthasar-R2", "MARK-casper-R2"}
		if got := magiMarks(r3.Messages[2].Content); !magiSame(got, want3) {
			t.Errorf("%s round 3 shows %v, want %v", m.Name, got, want3)
		}
		// The prefix is stable across rounds, so prompt caches apply.
		if r2.System != r1.System || r3.System != r1.System {
			t.Errorf("%s system prompt changed between rounds", m.Name)
		}
		if !reflect.DeepEqual(r2.Messages[0], r1.Messages[0]) || !reflect.DeepEqual(r3.Messages[0], r1.Messages[0]) || !reflect.DeepEqual(r3.Messages[1], r2.Messages[1]) {
			t.Errorf("%s prompt prefix changed between rounds", m.Name)
		}
	}

	res := fc.Decided(t)
	if res.Verdict != verdict.VerdictApproved || len(res.Rounds) != 3 || res.RoundsRun != 3 || res.Cancelled || res.Question != "Should we ship on Friday?" {
		t.Fatalf("result = %+v", res)
	}
	// Votes are stored as vote rows with their round, then a verdict row.
	var voteRows []transcript.Entry
	var verdictRow transcript.Entry
	for _, en := range fc.Engine.History().Entries() {
		switch en.Kind {
		case transcript.KindVote:
			voteRows = append(voteRows, en)
		case transcript.KindVerdict:
			verdictRow = en
		}
	}
	if len(voteRows) != 9 {
		t.Fatalf("%d vote rows, want 9", len(voteRows))
	}
	for k, en := range voteRows {
		round, member := k/3+1, debatetest.MagiMembers[k%3].Name
		if en.Round != round || en.Speaker != member || en.Vote != string(votes[member][round-1]) || en.Status != transcript.StatusComplete {
			t.Errorf("vote row %d = round %d %s %q %s, want round %d %s %q", k, en.Round, en.Speaker, en.Vote, en.Status, round, member, votes[member][round-1])
		}
	}
	if verdictRow.Vote != "APPROVED" || verdictRow.Round != 3 || !strings.Contains(verdictRow.Text, "3 approve, 0 reject, 0 abstain, 0 invalid") {
		t.Errorf("verdict row = %+v", verdictRow)
	}
	// Flips: balthasar joined melchior with nothing new (conformity);
	// casper went abstain → reject → approve.
	wantFlips := []string{"balthasar 1→2 reject→approve conformity=true", "casper 1→2 abstain→reject conformity=true", "casper 2→3 reject→approve conformity=true"}
	var gotFlips []string
	for _, f := range res.Flips {
		gotFlips = append(gotFlips, fmt.Sprintf("%s %d→%d %s→%s conformity=%v", f.Agent, f.FromRound, f.ToRound, f.From, f.To, f.Conformity))
	}
	if !magiSame(gotFlips, wantFlips) {
		t.Errorf("flips = %v, want %v", gotFlips, wantFlips)
	}
	// Usage: three calls per member, cached tokens included, priced.
	for _, u := range res.Agents {
		if u.Calls != 3 || u.Usage != (providers.Usage{InputTokens: 300, OutputTokens: 60, CachedTokens: 120}) {
			t.Errorf("%s usage = %+v", u.Agent, u)
		}
	}
	if want := 3 * (100*1.0 + 20*10 + 100*3 + 20*15 + 100*0.5 + 20*3) / 1e6; magiAbsDiff(res.Cost, want) > 1e-12 {
		t.Errorf("cost = %v, want %v", res.Cost, want)
	}
	// One VoteCast per member and round, one VerdictReached, one
	// MagiRoundFinished per round naming who changed vote, one MagiDecided.
	casts, verdicts := len(debatetest.EventsOf[verdict.VoteCast](fc.Events)), len(debatetest.EventsOf[verdict.VerdictReached](fc.Events))
	if casts != 9 || verdicts != 1 || len(debatetest.EventsOf[verdict.MagiDecided](fc.Events)) != 1 {
		t.Errorf("%d VoteCast and %d VerdictReached events, want 9 and 1", casts, verdicts)
	}
	var changed []string
	for i, rf := range debatetest.EventsOf[verdict.MagiRoundFinished](fc.Events) {
		if rf.Round != i+1 || rf.Of != 3 || len(rf.Votes) != 3 || rf.Votes[1].Vote != votes["balthasar"][i] {
			t.Errorf("round event %d = %+v", i, rf)
		}
		changed = append(changed, fmt.Sprintf("%d:%s", rf.Round, strings.Join(rf.Changed, "+")))
	}
	if got := strings.Join(changed, " "); got != "1: 2:balthasar+casper 3:casper" {
		t.Errorf("changed votes by round = %s", got)
	}
}

func TestMagiAsksForStructuredOutput(t *testing.T) {
	t.Parallel()
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, verdict.VoteApprove))
	})
	fc.SingleRound(t)
	if err := fc.Engine.Submit(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	// OpenAI's Responses API: text.format json_schema, strict.
	oa := fc.Requests("melchior")[0]
	format, _ := oa.JSON["text"].(map[string]any)["format"].(map[string]any)
	if !strings.HasSuffix(oa.Path, "/responses") || format["type"] != "json_schema" || format["name"] != "magi_vote" || format["strict"] != true {
		t.Errorf("openai %s text = %v", oa.Path, oa.JSON["text"])
	}
	gc, _ := fc.Requests("casper")[0].JSON["generationConfig"].(map[string]any)
	if gc["responseMimeType"] != "application/json" || (gc["responseSchema"] == nil && gc["responseJsonSchema"] == nil) {
		t.Errorf("gemini generationConfig = %v", gc)
	}
	body := string(fc.Requests("balthasar")[0].Body)
	if !strings.Contains(body, `"reasoning"`) || !strings.Contains(body, `"abstain"`) {
		t.Errorf("anthropic request carries no vote schema: %s", body)
	}
}

func TestMagiRetriesAnUnreadableVoteOnceThenInvalid(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	casperCalls := 0
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		switch agent {
		case "balthasar":
			return debatetest.MagiReply("I would rather not say.") // never readable
		case "casper":
			mu.Lock()
			defer mu.Unlock()
			casperCalls++
			if casperCalls == 1 {
				return debatetest.MagiReply("Sure! ```json\n{\"vote\": \"maybe\"}\n```") // readable only when asked again
			}
			return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, verdict.VoteReject))
		}
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, verdict.VoteApprove))
	})
	fc.SingleRound(t)
	if err := fc.Engine.Submit(context.Background(), "Adopt the four-day week?"); err != nil {
		t.Fatal(err)
	}
	res := fc.Decided(t)
	got := res.Rounds[0]
	if !got[0].Valid || got[0].Attempts != 1 {
		t.Errorf("melchior = %+v", got[0])
	}
	if got[1].Valid || got[1].Vote != verdict.VoteInvalid || got[1].Attempts != 2 || got[1].Failed || !strings.Contains(got[1].Error, "no JSON object found") {
		t.Errorf("balthasar = %+v, want INVALID after two attempts", got[1])
	}
	if !got[2].Valid || got[2].Vote != verdict.VoteReject || got[2].Attempts != 2 {
		t.Errorf("casper = %+v, want reject on the retry", got[2])
	}
	if res.Verdict != verdict.VerdictIncomplete {
		t.Errorf("verdict %s, want INCOMPLETE (approve, invalid, reject)", res.Verdict)
	}
	// The retry quotes the parse error and shows the unreadable answer as the member's own.
	reqs := fc.Requests("casper")
	if len(reqs) != 2 {
		t.Fatalf("casper got %d requests, want 2", len(reqs))
	}
	retry := reqs[1].Messages
	if len(retry) != 3 || retry[1].Role != providers.RoleAssistant || !strings.Contains(retry[1].Content, `{"vote": "maybe"}`) ||
		!strings.Contains(retry[2].Content, `could not be read`) || !strings.Contains(retry[2].Content, `"vote" is "maybe"`) {
		t.Errorf("retry messages = %+v", retry)
	}
	if n := len(fc.Requests("balthasar")); n != 2 {
		t.Errorf("balthasar asked %d times, want 2 (one retry only)", n)
	}
	// Rows: the first attempts say why they were asked again; usage counts both calls.
	var rows []string
	for _, en := range fc.Engine.History().Entries() {
		if en.Kind == transcript.KindVote {
			rows = append(rows, en.Speaker+":"+en.Vote)
		}
	}
	if len(rows) == 5 {
		slices.Sort(rows[3:]) // the two retries are reserved in whichever order they start
	}
	if want := []string{"melchior:approve", "balthasar:invalid", "casper:invalid", "balthasar:invalid", "casper:reject"}; !magiSame(rows, want) {
		t.Errorf("vote rows = %v, want %v", rows, want)
	}
	if res.Agents[1].Calls != 2 || res.Agents[1].Usage.InputTokens != 200 {
		t.Errorf("balthasar usage = %+v, want both calls counted", res.Agents[1])
	}
}

func TestMagiProviderErrorInRound2(t *testing.T) {
	t.Parallel()
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		if agent == "balthasar" && round == 2 {
			return providertest.Reply{Status: 400, Text: "prompt is too long today"}
		}
		vote := verdict.VoteApprove
		if agent == "casper" {
			vote = verdict.VoteReject
		}
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, vote))
	})
	if err := fc.Engine.Submit(context.Background(), "Open-source the engine?"); err != nil {
		t.Fatalf("one failing member must not fail the council: %v", err)
	}
	res := fc.Decided(t)
	b2 := res.Rounds[1][1]
	if b2.Valid || !b2.Failed || !strings.Contains(b2.Error, "prompt is too long today") || b2.Attempts != 1 {
		t.Errorf("balthasar round 2 = %+v, want INVALID with the provider's error, no retry", b2)
	}
	if len(res.Rounds) != 3 || !res.Rounds[2][1].Valid {
		t.Fatalf("the council must go on to round 3 with balthasar back: %+v", res.Rounds)
	}
	// Round 3 shows the failure in place of balthasar's round-2 opinion.
	last := fc.Requests("melchior")[2].Messages
	if !strings.Contains(last[len(last)-1].Content, "[BALTHASAR]: (no valid opinion this round:") {
		t.Errorf("round 3 prompt does not show the failed opinion:\n%s", last[len(last)-1].Content)
	}
	if res.Verdict != verdict.VerdictApproved {
		t.Errorf("verdict = %s, want APPROVED", res.Verdict)
	}
	var errRow bool
	for _, en := range fc.Engine.History().Entries() {
		errRow = errRow || (en.Kind == transcript.KindVote && en.Round == 2 && en.Speaker == "balthasar" && en.Status == transcript.StatusError && en.Vote == "invalid")
	}
	if !errRow {
		t.Error("the failed vote is not recorded as an error row with vote invalid")
	}
}

func TestMagiStopsWhenEveryMemberFails(t *testing.T) {
	t.Parallel()
	fc := debatetest.NewFakeCouncil(t, known, func(string, int, providertest.Request) providertest.Reply {
		return providertest.Reply{Status: 400, Text: "no such model"}
	})
	err := fc.Engine.Submit(context.Background(), "q")
	if err == nil || !strings.Contains(err.Error(), "every MAGI member failed in round 1") {
		t.Fatalf("err = %v", err)
	}
	res := fc.Decided(t)
	if len(res.Rounds) != 1 || res.Verdict != verdict.VerdictIncomplete {
		t.Errorf("rounds %d, verdict %s; want 1 round, INCOMPLETE", len(res.Rounds), res.Verdict)
	}
}

func TestMagiCancelKeepsWhatArrivedAndGivesNoVerdict(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		if round == 2 {
			cancel()
			return providertest.Reply{Text: debatetest.MagiVoteJSON(agent, round, verdict.VoteApprove), Delay: time.Second}
		}
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, verdict.VoteApprove))
	})
	if err := fc.Engine.Submit(ctx, "q"); err == nil {
		t.Fatal("a cancelled council must report it")
	}
	res := fc.Decided(t)
	if !res.Cancelled || len(res.Rounds) != 2 || res.RoundsRun != 2 {
		t.Errorf("cancelled %v after %d rounds", res.Cancelled, len(res.Rounds))
	}
	if n := len(debatetest.EventsOf[verdict.VerdictReached](fc.Events)); n != 0 {
		t.Errorf("%d VerdictReached events for a cancelled council", n)
	}
	for _, en := range fc.Engine.History().Entries() {
		if en.Kind == transcript.KindVerdict {
			t.Error("a cancelled council must not record a verdict")
		}
	}
}

func magiDemoEngine(t testing.TB) (*debate.Engine, *debatetest.EventLog) {
	cfg := debatetest.MagiTestConfig(known)
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", 0)})
	}
	e, err := debate.NewEngine(cfg, agents, "magi")
	if err != nil {
		t.Fatal(err)
	}
	log := &debatetest.EventLog{}
	e.Subscribe(log.Add)
	return e, log
}

func TestMagiDemoCouncilRunsThreeRounds(t *testing.T) {
	t.Parallel()
	e, log := magiDemoEngine(t)
	if err := e.Submit(context.Background(), "Should we ship on Friday?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	var rounds []int
	for _, rf := range debatetest.EventsOf[verdict.MagiRoundFinished](log) {
		rounds = append(rounds, rf.Round)
		if len(rf.Votes) != 3 || rf.Of != 3 {
			t.Errorf("round %d has %d votes of %d rounds", rf.Round, len(rf.Votes), rf.Of)
		}
	}
	res := debatetest.LastOf[verdict.MagiDecided](t, log)
	if !magiSame(rounds, []int{1, 2, 3}) || len(res.Rounds) != 3 {
		t.Fatalf("rounds = %v", rounds)
	}
	for _, round := range res.Rounds {
		for _, v := range round {
			if !v.Valid || v.Attempts != 1 || v.Summary == "" {
				t.Errorf("demo vote %+v", v)
			}
		}
	}
	// The demo provider is deterministic: for this question its members end
	// on reject, reject, approve.
	final := []verdict.Vote{res.Rounds[2][0].Vote, res.Rounds[2][1].Vote, res.Rounds[2][2].Vote}
	if !magiSame(final, []verdict.Vote{"reject", "reject", "approve"}) || res.Verdict != "REJECTED" || verdict.TallyLine(res.Tally) != "1 approve, 2 reject, 0 abstain, 0 invalid" || res.Usage.InputTokens == 0 {
		t.Errorf("last round %v, verdict %s, tally %v (want reject, reject, approve: REJECTED, 1 approve, 2 reject), usage %+v", final, res.Verdict, res.Tally, res.Usage)
	}
	// The single-round council stops after round 1 with its verdict.
	debatetest.SendControl(t, e, debate.Control{Kind: config.ControlRounds, N: 1})
	if err := e.Submit(context.Background(), "Adopt tabs?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	res = debatetest.LastOf[verdict.MagiDecided](t, log)
	entries := e.History().Entries()
	last := entries[len(entries)-1]
	if len(res.Rounds) != 1 || res.RoundsRun != 1 || last.Kind != transcript.KindVerdict || last.Round != 1 {
		t.Errorf("single round: %d rounds, last entry %+v", len(res.Rounds), last)
	}
	if rf := debatetest.LastOf[verdict.MagiRoundFinished](t, log); rf.Round != 1 || rf.Of != 1 || len(rf.Changed) != 0 {
		t.Errorf("single round's round event = %+v", rf)
	}
	// Rounds 3 brings the full council back.
	debatetest.SendControl(t, e, debate.Control{Kind: config.ControlRounds, N: 3})
	if err := e.Submit(context.Background(), "Adopt spaces?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if res = debatetest.LastOf[verdict.MagiDecided](t, log); res.RoundsRun != 3 {
		t.Errorf("after rounds 3 the council ran %d rounds", res.RoundsRun)
	}
}

func magiSame[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func magiAbsDiff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

// latencyProvider answers every request with a vote after a fixed delay.
type latencyProvider struct{ latency time.Duration }

func (latencyProvider) Name() string { return "fixed-latency" }

func (p latencyProvider) Stream(ctx context.Context, _ providers.Request) (providers.Stream, error) {
	t := time.NewTimer(p.latency)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	return &oneDelta{text: `{"vote":"approve","reasoning":"Fast enough.","summary":"ok"}`}, nil
}

type oneDelta struct {
	text string
	done bool
}

func (s *oneDelta) Next() bool {
	if s.done {
		return false
	}
	s.done = true
	return true
}
func (s *oneDelta) Delta() string { return s.text }
func (s *oneDelta) Err() error    { return nil }
func (s *oneDelta) Close() error  { return nil }
func (s *oneDelta) Result() providers.Result {
	return providers.Result{Usage: providers.Usage{InputTokens: 50, OutputTokens: 10}}
}

// BenchmarkMagiRound measures one single-round council's wall time against
// its slowest member (ratio 1.0: the round costs exactly the slowest call;
// 3.0 would be the three calls one after the other).
func BenchmarkMagiRound(b *testing.B) {
	latencies := []time.Duration{20 * time.Millisecond, 30 * time.Millisecond, 40 * time.Millisecond}
	cfg := debatetest.MagiTestConfig(known)
	var agents []*debate.Agent
	for i, spec := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: latencyProvider{latencies[i]}})
	}
	e, err := debate.NewEngine(cfg, agents, "magi")
	if err != nil {
		b.Fatal(err)
	}
	log := &debatetest.EventLog{}
	e.Subscribe(log.Add)
	debatetest.SendControl(b, e, debate.Control{Kind: config.ControlRounds, N: 1})
	ctx := context.Background()
	var wall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := e.Submit(ctx, "Ship it?"); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
	}
	b.StopTimer()
	debatetest.Settle(b, e)
	if rf := debatetest.LastOf[verdict.MagiRoundFinished](b, log); !rf.Votes[2].Valid {
		b.Fatalf("vote %+v", rf.Votes[2])
	}
	b.ReportMetric(float64(wall)/float64(b.N)/float64(latencies[2]), "ratio")
}

// A single-round council (magi -1) says so: "Round 1 of 1", and no talk of
// deliberation rounds that never come.
func TestMagiSingleRoundPromptSaysOneRound(t *testing.T) {
	t.Parallel()
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, verdict.VoteApprove))
	})
	fc.SingleRound(t)
	if err := fc.Engine.Submit(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"melchior", "balthasar", "casper"} {
		body := string(fc.Requests(agent)[0].Body)
		if !strings.Contains(body, "Round 1 of 1") || strings.Contains(body, "Round 1 of 3") || strings.Contains(body, "three rounds") {
			t.Errorf("%s's single-round request does not say Round 1 of 1: %s", agent, body)
		}
	}
}

// known is the modes the engines of these tests know: mention (where a
// session starts) and this one.
var known = config.ModeList{mention.Spec{}, Spec{}}
