package council

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/modes/mention"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// councilMembers sit on one vendor's fake each; the chairman is claude's
// model, on the anthropic fake, in its own seat.
var councilMembers = []struct{ name, display, vendor, model string }{
	{"gemini", "Gemini", "gemini", "gemini-3-flash-preview"},
	{"chatgpt", "ChatGPT", "openai", "gpt-5"},
	{"claude", "Claude", "anthropic", "claude-sonnet-4-6"},
}

// answerMark is member i's stage-1 answer marker: no name in it, so the
// masking leaves it for the test to read which label holds whose answer.
func answerMark(i int) string { return fmt.Sprintf("ANSWER-%d", i+1) }

var labelBlockRE = regexp.MustCompile(`--- (Response [A-Z]) ---\n[^\n]*?(ANSWER-\d)`)

// labelsByMember reads a ranking prompt: which label holds whose answer.
func labelsByMember(prompt string) map[string]string {
	out := map[string]string{}
	for _, m := range labelBlockRE.FindAllStringSubmatch(prompt, -1) {
		for i, cm := range councilMembers {
			if answerMark(i) == m[2] {
				out[cm.name] = m[1]
			}
		}
	}
	return out
}

type fakeCouncilMode struct {
	engine  *debate.Engine
	servers map[string]*providertest.Server // by member name (claude's holds the chairman too)
	events  *debatetest.EventLog
}

// newCouncilFakes starts the fakes; answer(member, stage, req) decides each reply.
func newCouncilFakes(t *testing.T, answer func(member string, stage int, req providertest.Request) providertest.Reply) *fakeCouncilMode {
	t.Helper()
	cfg := &config.Config{ModeList: known, Providers: map[string]providers.Spec{},
		Pricing: map[string]config.Price{"gpt-5": {Input: 1, Output: 10}, "claude-sonnet-4-6": {Input: 3, Output: 15}, "gemini-3-flash-preview": {Input: 0.5, Output: 3}}}
	getenv := func(k string) string { return map[string]string{"TEST_KEY": "test-key"}[k] }
	fakes := map[string]func(testing.TB, func(providertest.Request) providertest.Reply) *providertest.Server{
		"openai": providertest.OpenAI, "anthropic": providertest.Anthropic, "gemini": providertest.Gemini,
	}
	fc := &fakeCouncilMode{servers: map[string]*providertest.Server{}, events: &debatetest.EventLog{}}
	noRetry := 0
	var agents []*debate.Agent
	for _, m := range councilMembers {
		srv := fakes[m.vendor](t, func(r providertest.Request) providertest.Reply {
			return answer(m.name, debatetest.CouncilStageOf(r), r)
		})
		fc.servers[m.name] = srv
		spec := providers.Spec{Type: m.vendor, BaseURL: srv.URL, APIKeyEnv: "TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &noRetry}
		cfg.Providers[m.vendor] = spec
		p, err := open.Open(m.vendor, spec, getenv)
		if err != nil {
			t.Fatal(err)
		}
		as := config.AgentSpec{Name: m.name, Display: m.display, Provider: m.vendor, Model: m.model, Persona: "You are " + m.display + ", made by " + m.vendor + "."}
		cfg.Agents = append(cfg.Agents, as)
		agents = append(agents, &debate.Agent{AgentSpec: as, Provider: p})
	}
	e, err := debate.NewEngine(cfg, agents, "council") // chairman: claude's model, the highest output price
	if err != nil {
		t.Fatal(err)
	}
	fc.engine = e
	e.Subscribe(fc.events.Add)
	return fc
}

func (fc *fakeCouncilMode) stageRequests(member string, stage int) []providertest.Request {
	var out []providertest.Request
	for _, r := range fc.servers[member].Requests() {
		if debatetest.CouncilStageOf(r) == stage {
			out = append(out, r)
		}
	}
	return out
}

func memberIndex(name string) int {
	return slices.IndexFunc(councilMembers, func(m struct{ name, display, vendor, model string }) bool { return m.name == name })
}

// rankBy answers a ranking request with the members in want's order
// (those shown), as labels.
func rankBy(r providertest.Request, want ...string) providertest.Reply {
	labels := labelsByMember(r.Messages[0].Content) // the prompt; a retry adds messages after it
	var order []string
	for _, m := range want {
		if l, ok := labels[m]; ok {
			order = append(order, fmt.Sprintf("%q", l))
		}
	}
	return providertest.Reply{Text: `{"evaluation": "fine", "ranking": [` + strings.Join(order, ", ") + `]}`,
		Usage: providers.Usage{InputTokens: 50, OutputTokens: 10}}
}

func lastMessage(r providertest.Request) string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// signedAnswer gives itself away as much as a model could.
func signedAnswer(member string) providertest.Reply {
	i := memberIndex(member)
	m := councilMembers[i]
	return providertest.Reply{Text: fmt.Sprintf("%s As %s (%s, model %s by %s) I say: use queues.", answerMark(i), m.display, m.name, m.model, m.vendor),
		Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}}
}

func TestCouncilRankingPromptsNameNoMemberModelOrProvider(t *testing.T) {
	t.Parallel()
	fc := newCouncilFakes(t, func(member string, stage int, r providertest.Request) providertest.Reply {
		switch stage {
		case 1:
			return signedAnswer(member)
		case 2:
			return rankBy(r, "claude", "chatgpt", "gemini")
		}
		return providertest.Reply{Text: "The council says: use queues."}
	})
	if err := fc.engine.Submit(context.Background(), "Which queue should we pick for 10k msgs/s?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	forbidden := []string{"Parley", "Chairman", "made by"}
	for _, m := range councilMembers {
		forbidden = append(forbidden, m.name, m.display, m.model, m.vendor)
	}
	for i, m := range councilMembers {
		reqs := fc.stageRequests(m.name, 2)
		if len(reqs) != 1 {
			t.Fatalf("%s: %d ranking requests, want 1", m.name, len(reqs))
		}
		r := reqs[0]
		text := r.System + "\n" + debatetest.MagiAllText(r.Messages)
		for _, f := range forbidden {
			if strings.Contains(strings.ToLower(text), strings.ToLower(f)) {
				t.Errorf("%s's ranking prompt contains %q:\n%s", m.name, f, text)
			}
		}
		// Its own answer is not among those it ranks, every other one is.
		if strings.Contains(text, answerMark(i)) {
			t.Errorf("%s was shown its own answer", m.name)
		}
		if got := len(labelsByMember(lastMessage(r))); got != 2 {
			t.Errorf("%s saw %d labelled answers, want 2", m.name, got)
		}
		// Structured output on every vendor.
		body := string(r.Body)
		switch m.vendor {
		case "openai":
			if !strings.Contains(body, `"json_schema"`) || !strings.Contains(body, CouncilRankingSchemaName) {
				t.Errorf("openai ranking request without json_schema: %s", body)
			}
		case "anthropic":
			if !strings.Contains(body, `"output_config":{"format":{"schema"`) && !strings.Contains(body, CouncilRankingSchemaName) {
				t.Errorf("anthropic ranking request without structured output: %s", body)
			}
		case "gemini":
			if !strings.Contains(body, "responseSchema") && !strings.Contains(body, "responseJsonSchema") {
				t.Errorf("gemini ranking request without a response schema: %s", body)
			}
		}
	}
	dec := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	if dec.Chairman.Status != verdict.CouncilComplete || dec.Chairman.Text != "The council says: use queues." || dec.Chairman.Seat != ChairSeat {
		t.Fatalf("chairman %+v", dec.Chairman)
	}
	// The chairman reads the real authors and the aggregate.
	chair := fc.stageRequests("claude", 3)
	if len(chair) != 1 || !strings.Contains(lastMessage(chair[0]), "--- Claude (claude-sonnet-4-6) ---") || !strings.Contains(lastMessage(chair[0]), "points, mean rank") {
		t.Fatalf("chairman prompt: %+v", chair)
	}
	// Labels were recorded per ranker and differ from council order for at least one.
	for _, r := range dec.Rankings {
		if len(r.Labels) != 2 || !r.Valid {
			t.Errorf("ranking %+v", r)
		}
	}
}

// Borda on a scripted case: gemini ranks claude > chatgpt, chatgpt ranks
// claude > gemini, claude ranks gemini > chatgpt.
func TestCouncilBordaTotalsOnAScriptedCase(t *testing.T) {
	t.Parallel()
	prefs := map[string][]string{"gemini": {"claude", "chatgpt"}, "chatgpt": {"claude", "gemini"}, "claude": {"gemini", "chatgpt"}}
	fc := newCouncilFakes(t, func(member string, stage int, r providertest.Request) providertest.Reply {
		switch stage {
		case 1:
			return signedAnswer(member)
		case 2:
			return rankBy(r, prefs[member]...)
		}
		return providertest.Reply{Text: "final"}
	})
	if err := fc.engine.Submit(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	ranked := debatetest.LastOf[verdict.CouncilRanked](t, fc.events)
	got := fmt.Sprint(ranked.Aggregate)
	want := fmt.Sprint([]verdict.CouncilScore{
		{Member: "claude", Display: "Claude", Borda: 2, MeanRank: 1, Rankings: 2},
		{Member: "gemini", Display: "Gemini", Borda: 1, MeanRank: 1.5, Rankings: 2},
		{Member: "chatgpt", Display: "ChatGPT", Borda: 0, MeanRank: 2, Rankings: 2},
	})
	if got != want {
		t.Fatalf("aggregate\n got %s\nwant %s", got, want)
	}
	for _, r := range ranked.Rankings {
		if !slices.Equal(r.Order, prefs[r.Ranker]) {
			t.Errorf("%s order %v, want %v", r.Ranker, r.Order, prefs[r.Ranker])
		}
	}
	if n := len(debatetest.EventsOf[verdict.CouncilRankingCast](fc.events)); n != 3 {
		t.Fatalf("%d ranking events", n)
	}
}

func TestAggregateBordaWithFourMembersAndAnInvalidRanking(t *testing.T) {
	t.Parallel()
	ans := func(m string) verdict.CouncilAnswer {
		return verdict.CouncilAnswer{Member: m, Display: m, Text: "x", Status: string(transcript.StatusComplete)}
	}
	answers := []verdict.CouncilAnswer{ans("a"), ans("b"), ans("c"), ans("d"), {Member: "e", Status: string(transcript.StatusError)}}
	rankings := []verdict.CouncilRanking{
		{Ranker: "a", Valid: true, Order: []string{"b", "c", "d"}}, // b 2, c 1, d 0
		{Ranker: "b", Valid: true, Order: []string{"c", "a", "d"}}, // c 2, a 1, d 0
		{Ranker: "c", Valid: false},
		{Ranker: "d", Valid: true, Order: []string{"c", "b", "a"}}, // c 2, b 1, a 0
		{Ranker: "e", Valid: true, Order: []string{"a", "b", "c", "d"}},
	}
	got := verdict.Aggregate(answers, rankings)
	// e ranked 4: a 3, b 2, c 1, d 0. Totals: c 6, b 5, a 4, d 0.
	want := []verdict.CouncilScore{
		{Member: "c", Display: "c", Borda: 6, MeanRank: (2 + 1 + 1 + 3) / 4.0, Rankings: 4},
		{Member: "b", Display: "b", Borda: 5, MeanRank: (1 + 2 + 2) / 3.0, Rankings: 3},
		{Member: "a", Display: "a", Borda: 4, MeanRank: (2 + 3 + 1) / 3.0, Rankings: 3},
		{Member: "d", Display: "d", Borda: 0, MeanRank: (3 + 3 + 4) / 3.0, Rankings: 3},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	// A ranking that names its own ranker counts nothing for it.
	self := verdict.Aggregate(answers[:2], []verdict.CouncilRanking{{Ranker: "a", Valid: true, Order: []string{"a", "b"}}})
	if self[0].Member != "b" && self[1].Borda != 0 {
		t.Fatalf("self-vote counted: %v", self)
	}
	for _, s := range self {
		if s.Member == "a" && (s.Borda != 0 || s.Rankings != 0) {
			t.Fatalf("self-vote counted: %v", self)
		}
	}
}

// garbledRankings answers a council whose chatgpt never ranks readably
// and whose gemini leaves an answer out the first time (asked again, it
// ranks); the chairman answers chair.
func garbledRankings(chair providertest.Reply) func(member string, stage int, r providertest.Request) providertest.Reply {
	return func(member string, stage int, r providertest.Request) providertest.Reply {
		switch {
		case stage == 1:
			return signedAnswer(member)
		case stage == 2 && member == "chatgpt":
			return providertest.Reply{Text: "I liked them all, honestly."}
		case stage == 2 && member == "gemini" && len(r.Messages) == 1:
			return providertest.Reply{Text: `{"ranking": ["Response A"]}`} // leaves one out: asked again
		case stage == 2:
			return rankBy(r, "claude", "gemini", "chatgpt")
		}
		return chair
	}
}

func TestCouncilGarbageRankingIsRetriedOnceThenInvalid(t *testing.T) {
	t.Parallel()
	fc := newCouncilFakes(t, garbledRankings(providertest.Reply{Text: "final"}))
	if err := fc.engine.Submit(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	reqs := fc.stageRequests("chatgpt", 2)
	if len(reqs) != 2 {
		t.Fatalf("chatgpt was asked %d times, want 2", len(reqs))
	}
	retry := lastMessage(reqs[1])
	if !strings.Contains(retry, "could not be read") || !strings.Contains(retry, "no ranking found") {
		t.Fatalf("the retry does not quote the parse error: %q", retry)
	}
	ranked := debatetest.LastOf[verdict.CouncilRanked](t, fc.events)
	byRanker := map[string]verdict.CouncilRanking{}
	for _, r := range ranked.Rankings {
		byRanker[r.Ranker] = r
	}
	bad := byRanker["chatgpt"]
	if bad.Valid || bad.Attempts != 2 || !strings.Contains(bad.Error, "after a retry") || len(bad.Labels) != 2 {
		t.Fatalf("garbage ranking %+v", bad)
	}
	if g := byRanker["gemini"]; !g.Valid || g.Attempts != 2 || !slices.Equal(g.Order, []string{"claude", "chatgpt"}) {
		t.Fatalf("gemini's second answer was not used: %+v", g)
	}
	// The aggregate holds on the two valid rankings: gemini ranks claude >
	// chatgpt, claude ranks gemini > chatgpt.
	want := "[{gemini Gemini 1 1 1} {claude Claude 1 1 1} {chatgpt ChatGPT 0 2 2}]" // a tie keeps council order
	if got := fmt.Sprint(ranked.Aggregate); got != want {
		t.Fatalf("aggregate %s, want %s", got, want)
	}
	// Never silently dropped: the invalid ranking is an event and a record.
	var cast bool
	for _, ev := range debatetest.EventsOf[verdict.CouncilRankingCast](fc.events) {
		cast = cast || (ev.Ranker == "chatgpt" && !ev.Valid)
	}
	en, _ := fc.engine.History().Get(bad.Turn)
	if !cast || en.Speaker != "chatgpt" || !strings.Contains(en.Error, "unreadable ranking after a retry") {
		t.Fatalf("invalid ranking not reported: cast %v, entry %+v", cast, en)
	}
}

func TestCouncilChairmanFailingFallsBackToTheTopRankedAnswer(t *testing.T) {
	t.Parallel()
	fc := newCouncilFakes(t, func(member string, stage int, r providertest.Request) providertest.Reply {
		switch stage {
		case 1:
			return signedAnswer(member)
		case 2:
			return rankBy(r, "chatgpt", "gemini", "claude")
		}
		return providertest.Reply{Status: 400, Text: "the chairman's model is gone"}
	})
	err := fc.engine.Submit(context.Background(), "q?")
	if err == nil || !strings.Contains(err.Error(), "fallback: the top-ranked answer, by chatgpt") {
		t.Fatalf("err %v", err)
	}
	debatetest.Settle(t, fc.engine)
	dec := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	ch := dec.Chairman
	if ch.Status != verdict.CouncilFailed || ch.Fallback != "chatgpt" || !strings.Contains(ch.Error, "the chairman's model is gone") || ch.Member != "claude" {
		t.Fatalf("chairman %+v", ch)
	}
	fb, ok := dec.FallbackAnswer()
	if !ok || !strings.Contains(fb.Text, answerMark(1)) {
		t.Fatalf("fallback %+v", fb)
	}
	entries := fc.engine.History().Entries()
	failure, outcome := entries[len(entries)-2], entries[len(entries)-1]
	if failure.Kind != transcript.KindError || !strings.Contains(failure.Text, "Fallback: the top-ranked answer, by ChatGPT") {
		t.Fatalf("no labelled failure in the record: %+v", failure)
	}
	const sentence = "CHAIRMAN FAILED: anthropic: bad_request (HTTP 400): the chairman's model is gone · FALLBACK: the top-ranked answer, by ChatGPT"
	if outcome.Kind != transcript.KindOutcome || outcome.Text != sentence || dec.Sentence != sentence {
		t.Fatalf("outcome %q, event's %q, want %q", outcome.Text, dec.Sentence, sentence)
	}
	if got := verdict.CouncilsOf(entries); got[len(got)-1].Sentence != sentence {
		t.Fatalf("the record's sentence %q", got[len(got)-1].Sentence)
	}
}

func TestCouncilDefaultsAndConfigChecks(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	cfg.Providers = map[string]providers.Spec{"o": {Type: "openai"}, "a": {Type: "anthropic"}, "g": {Type: "gemini"}}
	for i, p := range []string{"g", "o", "a", "o", "a"} {
		cfg.Agents[i].Provider = p
	}
	if got := DefaultCouncilMembers(cfg); !slices.Equal(got, []string{"gemini", "chatgpt", "claude"}) {
		t.Fatalf("default members %v", got)
	}
	cfg.Pricing = map[string]config.Price{"gpt-5": {Output: 10}, "claude-sonnet-4-6": {Output: 15}, "gpt-5-codex": {Output: 15}}
	if got := DefaultChairman(cfg); got != "claude" { // 15, before codex and mc at 15 too
		t.Fatalf("default chairman %q", got)
	}
	cfg.Modes.Council.Members = []string{"gemini"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "at least two") {
		t.Fatalf("one member: %v", err)
	}
	cfg.Modes.Council.Members = []string{"gemini", "gemini"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("duplicate member: %v", err)
	}
	cfg.Modes.Council.Members, cfg.Modes.Council.Chairman = nil, "nobody"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "modes.council.chairman") {
		t.Fatalf("unknown chairman: %v", err)
	}
}

func TestShuffledLabelsAreSeededPerRanker(t *testing.T) {
	t.Parallel()
	members := []string{"a", "b", "c", "d", "e"}
	l1, m1 := shuffledLabels(members, 42, 0)
	_, m1again := shuffledLabels(members, 42, 0)
	_, m2 := shuffledLabels(members, 42, 1)
	if fmt.Sprint(m1) != fmt.Sprint(m1again) {
		t.Fatal("same seed, different shuffle")
	}
	if fmt.Sprint(m1) == fmt.Sprint(m2) {
		t.Fatal("two rankers got the same order (possible, but not for this seed)")
	}
	if !slices.Equal(l1, []string{"Response A", "Response B", "Response C", "Response D", "Response E"}) {
		t.Fatalf("labels %v", l1)
	}
}

func TestParseRankingTolerates(t *testing.T) {
	t.Parallel()
	labels := []string{"Response A", "Response B", "Response C"}
	for _, tc := range []struct{ in, want, err string }{
		{`{"evaluation":"x","ranking":["Response B","Response A","Response C"]}`, "B A C", ""},
		{"Sure!\n```json\n{'ranking': ['response c', 'b', 'A',],}\n```", "C B A", ""},
		{`{"result": {"order": [{"label": "Response A"}, {"label": "Response C"}, {"label": "Response B"}]}}`, "A C B", ""},
		{"A is thin; Response B is best.\n\nFINAL RANKING:\n1. Response B\n2. Response C\n3. Response A", "B C A", ""},
		{`{"ranking":["Response A","Response A","Response B"]}`, "", "ranked twice"},
		{`{"ranking":["Response A","Response B"]}`, "", "leaves out Response C"},
		{`{"ranking":["Response A","Response B","Response D"]}`, "", "not one of the labels"},
		{`{"ranking":[1,2,3]}`, "", "not one of the labels"},
		{"no idea", "", "no ranking found"},
		{"", "", "empty"},
	} {
		order, _, err := ParseRanking(tc.in, labels)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		var got []string
		for _, l := range order {
			got = append(got, strings.TrimPrefix(l, "Response "))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: %v, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzParseRanking(f *testing.F) {
	for _, s := range []string{`{"evaluation":"x","ranking":["Response B","Response A"]}`, "FINAL RANKING:\n1. Response A\n2. Response B",
		`{'ranking': ['a','b',]}`, `{"x":{"order":[{"label":"Response A"}]}}`, "{{{{", `{"ranking":[null,{},[]]}`} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, text string, n int) {
		n = 1 + (n%5+5)%5
		labels := make([]string, n)
		for i := range labels {
			labels[i] = responseLabel(i)
		}
		order, _, err := ParseRanking(text, labels)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		got := slices.Clone(order)
		slices.Sort(got)
		if !slices.Equal(got, labels) {
			t.Fatalf("order %v is not a permutation of %v", order, labels)
		}
	})
}

func TestMaskNamesHidesEveryToken(t *testing.T) {
	t.Parallel()
	got := maskNames("As Claude (claude-sonnet-4-6, Anthropic) I disagree with GPT-5 and gemini. Claudette stays.", []string{"claude", "Claude", "claude-sonnet-4-6", "anthropic", "gpt-5", "gemini", "ab"})
	want := "As [member] ([member], [member]) I disagree with [member] and [member]. Claudette stays."
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestCouncilEventsMarshalStably(t *testing.T) {
	t.Parallel()
	r := verdict.CouncilRanking{Ranker: "gemini", Display: "Gemini", Valid: true, Labels: map[string]string{"Response B": "claude", "Response A": "chatgpt"}, Order: []string{"claude", "chatgpt"}, Attempts: 1, Turn: 5}
	for _, c := range []struct {
		ev   debate.Event
		want string
	}{
		{verdict.CouncilAnswersCollected{Question: "q", Seed: 7, Answers: []verdict.CouncilAnswer{{Member: "gemini", Display: "Gemini", Provider: "gemini", Model: "m", Text: "t", Status: string(transcript.StatusComplete), Turn: 2}}},
			`{"type":"council_answers_collected","question":"q","seed":7,"answers":[{"member":"gemini","display":"Gemini","provider":"gemini","model":"m","text":"t","status":"complete","turn":2,"usage":{"input_tokens":0,"output_tokens":0},"cost_usd":0}]}`},
		{verdict.CouncilRankingCast{CouncilRanking: r},
			`{"type":"council_ranking_cast","ranker":"gemini","display":"Gemini","valid":true,"labels":{"Response A":"chatgpt","Response B":"claude"},"order":["claude","chatgpt"],"attempts":1,"turn":5,"usage":{"input_tokens":0,"output_tokens":0},"cost_usd":0}`},
		{verdict.CouncilRanked{Rankings: []verdict.CouncilRanking{}, Aggregate: []verdict.CouncilScore{{Member: "claude", Display: "Claude", Borda: 1, MeanRank: 1, Rankings: 1}}},
			`{"type":"council_ranked","rankings":[],"aggregate":[{"member":"claude","display":"Claude","borda":1,"mean_rank":1,"rankings":1}]}`},
	} {
		b, err := debate.MarshalEvent(c.ev)
		if err != nil || string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s (%v)", c.ev.EventType(), b, c.want, err)
		}
	}
	b, _ := debate.MarshalEvent(verdict.CouncilDecided{CouncilResult: verdict.CouncilResult{Question: "q", Chairman: verdict.CouncilChair{Status: verdict.CouncilFailed, Fallback: "claude"}}})
	if !strings.HasPrefix(string(b), `{"type":"council_decided","question":"q","seed":0,"answers":null`) || !strings.Contains(string(b), `"status":"failed","fallback":"claude"`) {
		t.Errorf("council_decided %s", b)
	}
}

// A member whose provider fails in stage 1 has no answer to rank; it still
// ranks the others, and the council goes on.
func TestCouncilMemberFailingInStageOneIsLeftOutOfTheRanking(t *testing.T) {
	t.Parallel()
	fc := newCouncilFakes(t, func(member string, stage int, r providertest.Request) providertest.Reply {
		switch {
		case stage == 1 && member == "gemini":
			return providertest.Reply{Status: 400, Text: "no such model"}
		case stage == 1:
			return signedAnswer(member)
		case stage == 2:
			return rankBy(r, "claude", "chatgpt")
		}
		return providertest.Reply{Text: "final"}
	})
	if err := fc.engine.Submit(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	dec := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	if dec.Answers[0].Valid() || !strings.Contains(dec.Answers[0].Error, "no such model") {
		t.Fatalf("gemini's answer %+v", dec.Answers[0])
	}
	for _, r := range dec.Rankings {
		for _, m := range r.Labels {
			if m == "gemini" {
				t.Errorf("%s was shown gemini's failed answer", r.Ranker)
			}
		}
	}
	// gemini ranks both (claude > chatgpt); chatgpt and claude rank one each.
	if got := fmt.Sprint(dec.Aggregate); got != "[{claude Claude 1 1 2} {chatgpt ChatGPT 0 1.5 2}]" || dec.Chairman.Status != verdict.CouncilComplete {
		t.Fatalf("aggregate %s, chairman %+v", got, dec.Chairman)
	}
}

// Cancelled in stage 1: no ranking, no chairman call; the result says
// cancelled and the error is the cancel.
func TestCouncilCancelledStopsAtTheStageItWasIn(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 3)
	fc := newCouncilFakes(t, func(member string, stage int, r providertest.Request) providertest.Reply {
		started <- struct{}{}
		return providertest.Reply{Text: "slow answer", Delay: 10 * time.Second}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fc.engine.Submit(ctx, "q?") }()
	for range 3 {
		<-started
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Submit did not return within 30s of the cancel")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	debatetest.Settle(t, fc.engine)
	dec := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	if !dec.Cancelled || dec.Chairman.Status != verdict.CouncilFailed || dec.Chairman.Error != "cancelled" || len(dec.Rankings) != 0 {
		t.Fatalf("result %+v", dec.CouncilResult)
	}
	if n := len(fc.stageRequests("claude", 3)) + len(fc.stageRequests("claude", 2)); n != 0 {
		t.Fatalf("%d calls after the cancel", n)
	}
}

// TestOnlyTheChairmansTurnIsMarkedAsTheAnswer: doors tell the answer
// from the deliberation by TurnStarted.Answer, set for the chairman alone.
func TestOnlyTheChairmansTurnIsMarkedAsTheAnswer(t *testing.T) {
	fc := newCouncilFakes(t, func(member string, stage int, r providertest.Request) providertest.Reply {
		if stage == 2 {
			return rankBy(r, "claude", "gemini", "chatgpt")
		}
		return signedAnswer(member)
	})
	if err := fc.engine.Submit(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	var answers []string
	for _, ev := range debatetest.EventsOf[debate.TurnStarted](fc.events) {
		if ev.Answer {
			answers = append(answers, fmt.Sprintf("%s round %d", ev.Entry.Speaker, ev.Entry.Round))
		}
	}
	if want := []string{ChairSeat + " round 3"}; !slices.Equal(answers, want) {
		t.Fatalf("answer turns %v, want %v", answers, want)
	}
}

// known is the modes the engines of these tests know: mention (where a
// session starts) and this one.
var known = config.ModeList{mention.Spec{}, Spec{}}
