package bench

import (
	"fmt"
	"slices"
	"sort"

	"github.com/parleyhq/parley/debate/verdict"
)

// Condition is one way of answering, scored over the same questions.
type Condition struct {
	Name     string     `json:"name"`
	Correct  int        `json:"correct"`
	Accuracy float64    `json:"accuracy"`
	CI95     [2]float64 `json:"ci95"`
	Tokens   int        `json:"tokens"` // over every question
	Cost     float64    `json:"cost_usd"`
	Calls    int        `json:"calls"`
	// Lost counts questions where a right answer was among the votes the
	// condition chose from (round 1's, for the council's rules) and it
	// answered wrong: right answers lost by the vote.
	Lost int `json:"right_answers_lost"`
	// Per question, for comparing conditions on price.
	TokensPerQuestion float64 `json:"tokens_per_question"`
	CostPerQuestion   float64 `json:"cost_per_question_usd"`
}

// Delta is the debate's effect: the final verdict against the round-1
// majority on the same questions, with the exact McNemar test on the
// questions where they disagree.
type Delta struct {
	From         string  `json:"from"`
	To           string  `json:"to"`
	Delta        float64 `json:"delta"`          // accuracy(to) - accuracy(from)
	RightToWrong int     `json:"right_to_wrong"` // from right, to wrong (McNemar b)
	WrongToRight int     `json:"wrong_to_right"` // from wrong, to right (McNemar c)
	PValue       float64 `json:"p_value"`
}

// Unanimity counts questions where every member gave the same wrong
// answer: in round 1, and in the last round (a collapse when debate made
// them so).
type Unanimity struct {
	WrongRound1 int `json:"wrong_round1"`
	WrongFinal  int `json:"wrong_final"`
	Collapsed   int `json:"collapsed"` // not unanimous-wrong in round 1, unanimous-wrong at the end
}

// EarlyStop is what stopping on a unanimous round 1 does to the run.
type EarlyStop struct {
	Stopped     int     `json:"stopped"` // questions whose round 1 was unanimous
	CallsSaved  int     `json:"calls_saved"`
	TokensSaved int     `json:"tokens_saved"`
	CostSaved   float64 `json:"cost_saved_usd"`
	// Changed counts questions whose correctness differs from the final
	// verdict's (when the council ran every round).
	Changed int `json:"changed"`
}

// Report is a run's measurements.
type Report struct {
	Kind        string   `json:"kind,omitempty"` // "report" at the end of a --jsonl stream
	Run         string   `json:"run"`
	Set         string   `json:"set"`
	Members     []string `json:"members"`
	Rounds      int      `json:"rounds"`
	Questions   int      `json:"questions"` // scored
	Total       int      `json:"total"`     // in the set
	Skipped     int      `json:"skipped_lines"`
	Invalid     int      `json:"invalid"` // answers that could not be read (or did not arrive)
	Calls       int      `json:"calls"`
	Tokens      int      `json:"tokens"`
	Cost        float64  `json:"cost_usd"`
	WallSeconds float64  `json:"wall_seconds"`
	Partial     bool     `json:"partial"`
	Stopped     string   `json:"stopped,omitempty"`
	// Simulation is set when simulated members answered (--demo on
	// builtin:gsm8k): the label every output shows.
	Simulation string         `json:"simulation,omitempty"`
	Conditions []Condition    `json:"conditions"`
	Delta      Delta          `json:"debate_delta"`
	Flips      Flips          `json:"flips"`
	Unanimity  Unanimity      `json:"unanimity"`
	EarlyStop  EarlyStop      `json:"early_stop"`
	InvalidBy  map[string]int `json:"invalid_by_member"`
	// Comparisons pair every two rules (members aside); Adaptive and
	// Guard say what adaptive rounds and the conformity guard do.
	Comparisons []Comparison    `json:"comparisons"`
	Adaptive    AdaptiveSummary `json:"adaptive"`
	Guard       GuardSummary    `json:"guard"`
	SPRT        SPRTSummary     `json:"sprt"`
	// Items are the per-question records (--json; --jsonl streams them).
	Items []Item `json:"items,omitempty"`
}

// roundsOf is how many rounds the councils planned (the most any ran).
func roundsOf(results []Result) int {
	n := 0
	for _, r := range results {
		n = max(n, len(r.Rounds))
	}
	return n
}

// verdictAfter is the council's answer after round k: the majority of that
// round's answers, or of the last round run when it stopped early.
func verdictAfter(r Result, k int) string {
	if len(r.Rounds) == 0 {
		return ""
	}
	k = min(k, len(r.Rounds))
	_, answer := verdict.DecideAnswers(answersOf(r.Rounds[k-1]))
	return answer
}

func answersOf(votes []Vote) []verdict.Vote {
	out := make([]verdict.Vote, len(votes))
	for i, v := range votes {
		out[i] = verdict.VoteInvalid
		if v.Valid {
			out[i] = verdict.Vote(v.Answer)
		}
	}
	return out
}

func unanimous(votes []Vote) bool {
	if len(votes) == 0 {
		return false
	}
	for _, v := range votes {
		if !v.Valid || v.Answer != votes[0].Answer {
			return false
		}
	}
	return true
}

// conditionsOf lists the condition names for members and rounds: each
// member alone, then the rules (Borda only when a question has options;
// adaptive and guarded only when there are rounds to stop or guard).
func conditionsOf(members []string, rounds int, options, same, sc, tooled bool) []string {
	var names []string
	for _, m := range members {
		names = append(names, "member:"+m)
	}
	names = append(names, RuleMajority, RuleWeighted)
	if options {
		names = append(names, RuleBorda)
	}
	for k := 2; k <= rounds; k++ {
		names = append(names, fmt.Sprintf("verdict_r%d", k))
	}
	if rounds > 1 {
		names = append(names, RuleAdaptive, RuleGuarded)
	}
	names = append(names, RuleEarlyStop, RuleSPRT)
	if sc {
		names = append(names, RuleSelfConsistency)
	}
	for _, c := range []struct {
		prefix string
		on     bool
	}{{SamePrefix, same}, {ToolsPrefix, tooled}} {
		if c.on {
			names = append(names, c.prefix+RuleMajority)
			if rounds > 1 {
				names = append(names, c.prefix+finalRule(rounds))
			}
		}
	}
	return append(names, RuleOracle)
}

// cell is one condition's outcome on one question.
type cell struct {
	answer  string
	correct bool
	// reachable: a right answer was among the votes the condition
	// chose from (its oracle), so a wrong outcome lost it.
	reachable bool
	tokens    int
	cost      float64
	calls     int
}

// answered is a cell for answer against gold.
func answered(answer, gold string, tokens int, cost float64, calls int) cell {
	return cell{answer: answer, correct: answer != "" && answer == gold, tokens: tokens, cost: cost, calls: calls}
}

// cells scores one question under every condition.
func cells(r Result, rounds int, margin float64) map[string]cell {
	out := map[string]cell{}
	if len(r.Rounds) == 0 {
		return out
	}
	roundTokens, roundCost, roundCalls := make([]int, len(r.Rounds)), make([]float64, len(r.Rounds)), make([]int, len(r.Rounds))
	for k, votes := range r.Rounds {
		for _, v := range votes {
			roundTokens[k] += v.Tokens
			roundCost[k] += v.Cost
			roundCalls[k] += v.Calls
		}
	}
	for _, v := range r.Rounds[0] {
		a := ""
		if v.Valid {
			a = v.Answer
		}
		out["member:"+v.Agent] = answered(a, r.Gold, v.Tokens, v.Cost, v.Calls)
	}
	upTo := func(answer string, k int) cell {
		t, c, n := 0, 0.0, 0
		for i := 0; i < min(k, len(r.Rounds)); i++ {
			t, c, n = t+roundTokens[i], c+roundCost[i], n+roundCalls[i]
		}
		return answered(answer, r.Gold, t, c, n)
	}
	out[RuleMajority] = upTo(verdictAfter(r, 1), 1)
	out[RuleWeighted] = upTo(string(verdict.WeightedAnswer(magiVotes(r.Rounds[0]))), 1)
	out[RuleBorda] = upTo(bordaAnswer(r.Rounds[0], r.Options), 1)
	for k := 2; k <= rounds; k++ {
		out[fmt.Sprintf("verdict_r%d", k)] = upTo(verdictAfter(r, k), k)
	}
	stop, _ := adaptiveStopRound(r, margin)
	out[RuleAdaptive] = upTo(verdictAfter(r, stop), stop)
	guarded, _ := guardedVerdict(r)
	out[RuleGuarded] = upTo(guarded, rounds)
	if unanimous(r.Rounds[0]) {
		out[RuleEarlyStop] = upTo(r.Rounds[0][0].Answer, 1)
	} else {
		out[RuleEarlyStop] = upTo(verdictAfter(r, rounds), rounds)
	}
	addBaselineCells(out, r, rounds)
	return out
}

// scoreOne says which conditions answered a question right (for progress).
func scoreOne(r Result) map[string]bool {
	out := map[string]bool{}
	for name, c := range cells(r, len(r.Rounds), verdict.DefaultAdaptiveMargin) {
		out[name] = c.correct
	}
	return out
}

func sortResults(rs []Result) { sort.Slice(rs, func(i, j int) bool { return rs[i].Seq < rs[j].Seq }) }

// Measure computes the report of results; members are in council order.
func Measure(results []Result, members []string, rounds int) Report {
	return MeasureWith(results, members, rounds, verdict.DefaultAdaptiveMargin)
}

// MeasureWith is Measure with adaptive rounds replayed at margin.
func MeasureWith(results []Result, members []string, rounds int, margin float64) Report {
	sortResults(results)
	if rounds == 0 {
		rounds = roundsOf(results)
	}
	options, same, sc, tooled := false, false, false, false
	for _, r := range results {
		options = options || r.Options > 0
		same = same || r.SameModel != nil
		sc = sc || r.Samples != nil
		tooled = tooled || r.WithTools != nil
	}
	rep := Report{Members: members, Rounds: rounds, Questions: len(results), InvalidBy: map[string]int{},
		Adaptive: AdaptiveSummary{Margin: margin, Stops: map[string]int{}}}
	names := conditionsOf(members, rounds, options, same, sc, tooled)
	var scoredAll []map[string]cell
	conds := make(map[string]*Condition, len(names))
	for _, n := range names {
		conds[n] = &Condition{Name: n}
	}
	flips := flipCounts{byKey: map[[2]int]*MemberFlips{}, memberIndex: map[string]int{}}
	for i, m := range members {
		flips.memberIndex[m] = i
		rep.InvalidBy[m] = 0
	}
	final := finalRule(rounds)
	for _, r := range results {
		scored := cells(r, rounds, margin)
		scoredAll = append(scoredAll, scored)
		rep.measureAdaptive(r, margin)
		rep.measureGuard(r, scored[final].correct != scored[RuleGuarded].correct)
		addCells(conds, scored)
		rep.measureCalls(r)
		rep.measureDelta(scored["majority_r1"].correct, scored[final].correct)
		flips.add(r)
		rep.measureUnanimity(r, scored["early_stop"].correct != scored[final].correct)
		rep.measureSPRT(r, scored[RuleSPRT])
	}
	for _, n := range names {
		rep.Conditions = append(rep.Conditions, conds[n].finish(rep.Questions))
	}
	rep.Comparisons = compareRules(names, scoredAll, rep.Questions)
	rep.Delta.From, rep.Delta.To = "majority_r1", final
	rep.Delta.Delta = conds[final].Accuracy - conds["majority_r1"].Accuracy
	rep.Delta.PValue = McNemarExact(rep.Delta.RightToWrong, rep.Delta.WrongToRight)
	rep.Flips = flips.summary()
	rep.SPRT.finish(rep.Questions)
	rep.Items = make([]Item, len(results))
	for i, r := range results {
		rep.Items[i] = ItemOf(r, rounds, margin)
	}
	return rep
}

// addCells adds one question's scored cells to their conditions.
func addCells(conds map[string]*Condition, scored map[string]cell) {
	for name, c := range scored {
		if cd := conds[name]; cd != nil {
			cd.Tokens += c.tokens
			cd.Cost += c.cost
			cd.Calls += c.calls
			if c.correct {
				cd.Correct++
			}
			if c.reachable && !c.correct {
				cd.Lost++
			}
		}
	}
}

// finish is the condition with its rates over questions and its interval.
func (c *Condition) finish(questions int) Condition {
	if questions > 0 {
		c.Accuracy = float64(c.Correct) / float64(questions)
		c.TokensPerQuestion = float64(c.Tokens) / float64(questions)
		c.CostPerQuestion = c.Cost / float64(questions)
	}
	lo, hi := Wilson(c.Correct, questions)
	c.CI95 = [2]float64{lo, hi}
	return *c
}

// measureCalls adds a question's calls, tokens, cost and invalid votes.
func (rep *Report) measureCalls(r Result) {
	all := r.Rounds
	if r.SameModel != nil {
		all = append(slices.Clone(all), r.SameModel.Rounds...)
	}
	if r.WithTools != nil {
		all = append(slices.Clone(all), r.WithTools.Rounds...)
	}
	if r.Samples != nil {
		all = append(slices.Clone(all), r.Samples.Votes)
	}
	for _, votes := range all {
		for _, v := range votes {
			rep.Calls += v.Calls
			rep.Tokens += v.Tokens
			rep.Cost += v.Cost
			if !v.Valid {
				rep.Invalid++
				rep.InvalidBy[v.Agent]++
			}
		}
	}
}

// measureDelta pairs the round-1 majority with the final verdict.
func (rep *Report) measureDelta(from, to bool) {
	switch {
	case from && !to:
		rep.Delta.RightToWrong++
	case !from && to:
		rep.Delta.WrongToRight++
	}
}

// measureUnanimity counts unanimous wrong rounds and what stopping on a
// unanimous round 1 would have saved; changed: stopping there changes the
// verdict's correctness.
func (rep *Report) measureUnanimity(r Result, changed bool) {
	last := r.Rounds[len(r.Rounds)-1]
	wrong1 := unanimous(r.Rounds[0]) && r.Rounds[0][0].Answer != r.Gold
	wrongN := unanimous(last) && last[0].Answer != r.Gold
	if wrong1 {
		rep.Unanimity.WrongRound1++
	}
	if wrongN {
		rep.Unanimity.WrongFinal++
	}
	if wrongN && !wrong1 {
		rep.Unanimity.Collapsed++
	}
	if !unanimous(r.Rounds[0]) {
		return
	}
	rep.EarlyStop.Stopped++
	if r.EarlyStopped {
		return
	}
	for _, votes := range r.Rounds[1:] {
		for _, v := range votes {
			rep.EarlyStop.CallsSaved += v.Calls
			rep.EarlyStop.TokensSaved += v.Tokens
			rep.EarlyStop.CostSaved += v.Cost
		}
	}
	if changed {
		rep.EarlyStop.Changed++
	}
}

// measureAdaptive adds where an adaptive council stops on r and what the
// rounds after it cost (saved, unless the council already stopped there).
func (rep *Report) measureAdaptive(r Result, margin float64) {
	if rep.Rounds < 2 || len(r.Rounds) == 0 {
		return
	}
	stop, why := adaptiveStopRound(r, margin)
	rep.Adaptive.Stops[why]++
	if r.StopReason != "" {
		rep.Adaptive.Ran = true
		rep.Adaptive.CallsSaved += (rep.Rounds - len(r.Rounds)) * len(r.Rounds[0])
		return
	}
	for _, votes := range r.Rounds[stop:] {
		for _, v := range votes {
			rep.Adaptive.CallsSaved += v.Calls
			rep.Adaptive.TokensSaved += v.Tokens
			rep.Adaptive.CostSaved += v.Cost
		}
	}
}

// measureGuard adds the conformity changes the guard leaves out of r's
// verdict.
func (rep *Report) measureGuard(r Result, changed bool) {
	if rep.Rounds < 2 {
		return
	}
	_, discounted := guardedVerdict(r)
	n := len(discounted)
	rep.Guard.Discounted += n
	if n > 0 {
		rep.Guard.Questions++
	}
	if changed {
		rep.Guard.Changed++
	}
}
