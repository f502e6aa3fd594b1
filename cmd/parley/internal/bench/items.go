package bench

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/parleyhq/parley/debate/sanitize"
)

// Item is one problem's record, so a run can be checked and compared
// question by question: what was asked, the gold answer, every member's
// answer per round, every condition's outcome, and what it cost.
type Item struct {
	Kind     string       `json:"kind,omitempty"` // "item" in a --jsonl stream
	ID       string       `json:"id"`
	Seq      int          `json:"seq"`
	Question string       `json:"question"`
	Gold     string       `json:"gold"`
	Rounds   [][]ItemVote `json:"rounds"`
	// SameModel and SelfConsistency are the baselines' votes, when run.
	SameModel       [][]ItemVote `json:"same_model,omitempty"`
	SelfConsistency []ItemVote   `json:"self_consistency,omitempty"`
	// WithTools is the council asked again with the run's tools (--tools):
	// each vote with its tool calls and the evidence ids it cites.
	WithTools [][]ItemVote `json:"with_tools,omitempty"`
	// Conditions are keyed by the report's condition names.
	Conditions map[string]ItemOutcome `json:"conditions"`
	Calls      int                    `json:"calls"`
	Tokens     int                    `json:"tokens"`
	Cost       float64                `json:"cost_usd"`
	Error      string                 `json:"error,omitempty"`
}

// ItemVote is one member's answer in one round.
type ItemVote struct {
	Agent      string  `json:"agent"`
	Answer     string  `json:"answer"` // "" when invalid
	Valid      bool    `json:"valid"`
	Confidence float64 `json:"confidence"`
	// ChangedBy is the argument the member named for a changed answer;
	// Conformity says the audit found none new.
	ChangedBy  string `json:"changed_by"`
	Conformity bool   `json:"conformity,omitempty"`
	// ToolCalls and Evidence are the tools the member called (worded as
	// every door words them: "E1 fetch_url example.org/a") and the
	// evidence ids its vote cited (empty without tools).
	ToolCalls []string `json:"tool_calls"`
	Evidence  []string `json:"evidence"`
	Calls     int      `json:"calls"`
	Tokens    int      `json:"tokens"`
	Cost      float64  `json:"cost_usd"`
	Error     string   `json:"error,omitempty"`
}

// ItemOutcome is one condition's answer to one problem.
type ItemOutcome struct {
	Answer  string  `json:"answer"` // "" : no answer (a tie, or invalid votes)
	Correct bool    `json:"correct"`
	Calls   int     `json:"calls"`
	Tokens  int     `json:"tokens"`
	Cost    float64 `json:"cost_usd"`
}

// ItemOf is r's record, its conditions scored as the report scores them.
func ItemOf(r Result, rounds int, margin float64) Item {
	it := Item{ID: r.ID, Seq: r.Seq, Question: r.Question, Gold: r.Gold, Rounds: itemRounds(r.Rounds, r),
		Conditions: map[string]ItemOutcome{}, Error: r.Error}
	if rounds == 0 {
		rounds = len(r.Rounds)
	}
	var members []string
	if len(r.Rounds) > 0 {
		for _, v := range r.Rounds[0] {
			members = append(members, v.Agent)
		}
	}
	scored := cells(r, rounds, margin)
	for _, name := range conditionsOf(members, rounds, r.Options > 0, r.SameModel != nil, r.Samples != nil, r.WithTools != nil) {
		if c, ok := scored[name]; ok {
			it.Conditions[name] = ItemOutcome{Answer: c.answer, Correct: c.correct, Calls: c.calls, Tokens: c.tokens, Cost: c.cost}
		}
	}
	all := r.Rounds
	if h := r.SameModel; h != nil {
		it.SameModel = itemRounds(h.Rounds, Result{Flips: h.Flips})
		all = append(all[:len(all):len(all)], h.Rounds...)
	}
	if h := r.WithTools; h != nil {
		it.WithTools = itemRounds(h.Rounds, Result{Flips: h.Flips})
		all = append(all[:len(all):len(all)], h.Rounds...)
	}
	if sc := r.Samples; sc != nil {
		it.SelfConsistency = itemRounds([][]Vote{sc.Votes}, Result{})[0]
		all = append(all[:len(all):len(all)], sc.Votes)
	}
	for _, votes := range all {
		n, t, c := sumOf(votes)
		it.Calls, it.Tokens, it.Cost = it.Calls+n, it.Tokens+t, it.Cost+c
	}
	return it
}

// itemRounds are rounds as records; r's flips mark conformity.
func itemRounds(rounds [][]Vote, r Result) [][]ItemVote {
	out := make([][]ItemVote, len(rounds))
	for k, votes := range rounds {
		out[k] = make([]ItemVote, len(votes))
		for i, v := range votes {
			iv := ItemVote{Agent: v.Agent, Valid: v.Valid, Confidence: v.Confidence, ChangedBy: v.ChangedBy,
				ToolCalls: append([]string{}, v.ToolCalls...), Evidence: append([]string{}, v.Evidence...), Calls: v.Calls, Tokens: v.Tokens, Cost: v.Cost, Error: v.Error}
			if v.Valid {
				iv.Answer = v.Answer
			}
			for _, f := range r.Flips {
				if f.Agent == v.Agent && f.ToRound == k+1 && f.Conformity {
					iv.Conformity = true
				}
			}
			out[k][i] = iv
		}
	}
	return out
}

// ItemStream writes items as JSON lines, one at a time from any goroutine.
type ItemStream struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewItemStream streams to w.
func NewItemStream(w io.Writer) *ItemStream {
	return &ItemStream{enc: sanitize.NewJSONEncoder(w)}
}

// Write prints one item as a line.
func (s *ItemStream) Write(it Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	it.Kind = "item"
	return s.enc.Encode(it)
}

// WriteReport ends the stream with the report (its items were streamed).
func (s *ItemStream) WriteReport(rep Report) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep.Kind, rep.Items = "report", nil
	return s.enc.Encode(rep)
}
