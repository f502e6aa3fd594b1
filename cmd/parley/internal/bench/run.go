package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/verdict"
)

// Vote is one member's answer in one round of a question, as the council's
// events reported it.
type Vote struct {
	Agent  string  `json:"agent"`
	Answer string  `json:"answer"` // normalised; "" when invalid
	Valid  bool    `json:"valid"`
	Calls  int     `json:"calls"`
	Tokens int     `json:"tokens"`
	Cost   float64 `json:"cost_usd"`
	Error  string  `json:"error,omitempty"`
	// Confidence and Ranking (option sets) feed the weighted and Borda rules.
	Confidence float64  `json:"confidence,omitempty"`
	Ranking    []string `json:"ranking,omitempty"`
	// ChangedBy is the argument the member named for changing its answer
	// (rounds 2–3; "" when it kept it or named none).
	ChangedBy string `json:"changed_by,omitempty"`
	// ToolCalls are the member's tool calls in the round, worded as every
	// door words them ("E1 fetch_url example.org/a"), and Evidence the ids
	// its vote cites (the with-tools council only).
	ToolCalls []string `json:"tool_calls,omitempty"`
	Evidence  []string `json:"evidence,omitempty"`
}

// Result is one scored question: every round's votes and the council's
// verdict, stored per question so a run can be resumed.
type Result struct {
	ID           string   `json:"id"`
	Seq          int      `json:"seq"` // position in the set
	Question     string   `json:"question,omitempty"`
	Gold         string   `json:"gold"`
	Rounds       [][]Vote `json:"rounds"`
	Verdict      string   `json:"verdict"`
	EarlyStopped bool     `json:"early_stopped,omitempty"`
	// StopReason is why an adaptive council stopped early ("" : it ran
	// every round, or was not adaptive).
	StopReason string         `json:"stop_reason,omitempty"`
	Options    int            `json:"options,omitempty"` // the question's options (Borda)
	Flips      []verdict.Flip `json:"flips"`
	// SameModel and Samples are the homogeneous council and the
	// self-consistency samples, when the run asked for them.
	SameModel *Homogeneous `json:"same_model,omitempty"`
	Samples   *Sampled     `json:"self_consistency,omitempty"`
	// WithTools is the same council asked again with the run's tools
	// (--tools): the paired condition of the tools (baselines.go).
	WithTools *Homogeneous `json:"with_tools,omitempty"`
	WallMS    int64        `json:"wall_ms"`
	Error     string       `json:"error,omitempty"`
}

// Setup is what a run needs besides its questions.
type Setup struct {
	Config  *config.Config  // members in Modes.Magi.Agents
	Agents  []*debate.Agent // every configured agent, bound to providers
	Rounds  int             // 1 to 3
	Workers int             // questions in parallel
	// EarlyStop makes the councils stop on a unanimous round 1 (the
	// report measures what early stop would do either way).
	EarlyStop, Anonymous, Shuffle bool
	// Adaptive and Guard run the councils so (the report replays both on
	// full debates either way).
	Adaptive, Guard bool
	MaxCost         float64 // USD; 0: no cap
	// SameModel, when set, seats a second council with every member on
	// this agent's provider and model (the homogeneous baseline);
	// SelfConsistency samples this agent alone at the debate's token
	// budget (the self-consistency baseline).
	SameModel, SelfConsistency *debate.Agent
	// Tools, when set, gives the members of a second council their tools
	// (--tools): each question is asked without and with them.
	Tools func(*debate.Agent) *toolbox.Box
	// Save stores a finished question before it counts as done.
	Save func(Result) error
	// Progress is told after each question.
	Progress func(Progress)
}

// Progress is a run's state after a question.
type Progress struct {
	Done, Total int
	Correct     map[string]int // by condition, over Done
	Spent       float64
	Elapsed     time.Duration
}

// Outcome is what Run did: the new results (in set order), and why it
// stopped early ("" when it did not).
type Outcome struct {
	Results  []Result
	Stopped  string
	Spent    float64
	Duration time.Duration
}

// Run asks the council every question not in done, Workers at a time, each
// question on a fresh engine. It stops starting questions when ctx ends or
// the next call could pass MaxCost; questions cut short are not scored.
func Run(ctx context.Context, s Setup, questions []Question, done map[string]bool) (Outcome, error) {
	start := time.Now()
	if err := s.Check(); err != nil {
		return Outcome{}, err
	}
	g := newGate(s.Config.Bench.Limits)
	meter := spend.NewMeter(s.MaxCost, 0) // one cap over every question's engine
	var (
		mu      sync.Mutex
		out     Outcome
		stopped = make(chan struct{})
		once    sync.Once
		saveErr error
		correct = map[string]int{}
		count   = len(done)
	)
	stop := func(why string) {
		once.Do(func() {
			mu.Lock()
			out.Stopped = why
			mu.Unlock()
			close(stopped)
		})
	}
	todo := make(chan int)
	go func() {
		defer close(todo)
		for i, q := range questions {
			if done[q.ID] {
				continue
			}
			select {
			case todo <- i:
			case <-stopped:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range max(1, s.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range todo {
				select {
				case <-stopped:
					return
				default:
				}
				r, ok, err := runOne(ctx, s, g, meter, questions[i], i, func() { stop("max-cost") })
				if err != nil {
					stop(err.Error())
					return
				}
				if !ok {
					continue
				}
				if s.Save != nil {
					if err := s.Save(r); err != nil {
						mu.Lock()
						saveErr = err
						mu.Unlock()
						stop("saving: " + err.Error())
						return
					}
				}
				mu.Lock()
				out.Results = append(out.Results, r)
				count++
				for name, ok := range scoreOne(r) {
					if ok {
						correct[name]++
					}
				}
				p := Progress{Done: count, Total: len(questions), Correct: cloneCounts(correct), Spent: meter.Spent(), Elapsed: time.Since(start)}
				mu.Unlock()
				if s.Progress != nil {
					s.Progress(p)
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil && out.Stopped == "" {
		out.Stopped = "interrupted"
	}
	sortResults(out.Results)
	out.Spent, out.Duration = meter.Spent(), time.Since(start)
	return out, saveErr
}

// council is one council's outcome on one question.
type council struct {
	rounds  [][]Vote
	decided *verdict.MagiDecided
	err     error // the run's error (a cap, a cancel, every member failing)
}

// ask puts one question to a fresh council of seats (agent names among
// agents) for rounds rounds and reads its events.
func ask(ctx context.Context, s Setup, g *gate, meter *spend.Meter, q Question, agents []*debate.Agent, seats []string, rounds int) (council, error) {
	return askWith(ctx, s, g, meter, q, agents, seats, rounds, nil)
}

// askWith is ask with tools (nil: none): each vote then carries its
// member's tool calls of that turn and the evidence it cites.
func askWith(ctx context.Context, s Setup, g *gate, meter *spend.Meter, q Question, agents []*debate.Agent, seats []string, rounds int, tools func(*debate.Agent) *toolbox.Box) (council, error) {
	cfg := *s.Config
	cfg.Modes.Magi.Agents = seats
	cfg.Modes.Magi.AnswerType = string(q.Type)
	cfg.Modes.Magi.EarlyStop, cfg.Modes.Magi.Anonymous, cfg.Modes.Magi.Shuffle = s.EarlyStop, s.Anonymous, s.Shuffle
	cfg.Modes.Magi.Adaptive, cfg.Modes.Magi.Guard = s.Adaptive, s.Guard
	gatedAgents := make([]*debate.Agent, len(agents))
	for i, a := range agents {
		b := *a
		if b.MaxTokens == 0 {
			b.MaxTokens = cfg.Bench.MaxTokens
		}
		b.Provider = &gated{inner: a.Provider, g: g}
		if tools == nil && s.Tools != nil {
			b.Tools = nil // the paired condition without tools: no XML workspace steps either
		}
		gatedAgents[i] = &b
	}
	eng, err := debate.NewEngine(&cfg, gatedAgents, debate.ModeMagi)
	if err != nil {
		return council{}, err
	}
	eng.SetMeter(meter)
	if tools != nil {
		eng.SetToolBoxes(tools)
	}
	if err := eng.Control(ctx, debate.Control{Kind: config.ControlRounds, N: rounds}); err != nil {
		return council{}, err
	}
	var c council
	calls := map[int][]string{} // a vote's turn → its tool calls (a turn's calls come before its vote)
	unsubscribe := eng.Subscribe(func(ev debate.Event) {
		switch ev := ev.(type) {
		case debate.ToolFinished:
			calls[ev.Turn] = append(calls[ev.Turn], sanitize.Text(ev.Short()))
		case verdict.MagiRoundFinished:
			votes := votesOf(ev.Votes)
			for i, v := range ev.Votes {
				votes[i].ToolCalls = calls[v.Turn]
				if v.Valid && len(v.Evidence) > 0 {
					votes[i].Evidence = slices.Clone(v.Evidence)
				}
			}
			c.rounds = append(c.rounds, votes)
		case verdict.MagiDecided:
			c.decided = &ev
		}
	})
	defer unsubscribe()
	c.err = eng.Submit(ctx, q.Prompt())
	_ = eng.Wait(context.WithoutCancel(ctx)) // every event is read
	return c, nil
}

// scored says whether a council's outcome can be scored: false when a
// cap, a cancel or the end of ctx cut it short.
func (c council) scored(ctx context.Context, q Question, overBudget func()) (bool, error) {
	if spend.IsCap(c.err) {
		overBudget() // the run starts no new question; this one is not scored
		return false, nil
	}
	switch {
	case ctx.Err() != nil:
		return false, nil
	case c.decided == nil:
		return false, fmt.Errorf("question %s: the council reported no outcome: %v", q.ID, c.err)
	case c.decided.Cancelled:
		return false, nil
	}
	return true, nil
}

// runOne puts one question to a fresh council, then to the baselines the
// setup asks for. ok is false when the question was cut short (not scored).
func runOne(ctx context.Context, s Setup, g *gate, meter *spend.Meter, q Question, seq int, overBudget func()) (Result, bool, error) {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := Result{ID: q.ID, Seq: seq, Question: q.Prompt(), Gold: q.Answer, Options: len(q.Options)}
	start := time.Now()
	c, err := ask(qctx, s, g, meter, q, s.Agents, s.Config.Modes.Magi.Agents, s.Rounds)
	if err != nil {
		return Result{}, false, err
	}
	if ok, err := c.scored(ctx, q, overBudget); !ok || err != nil {
		return Result{}, false, err
	}
	r.Rounds = c.rounds
	r.Verdict, r.EarlyStopped, r.Flips = string(c.decided.Verdict), c.decided.EarlyStopped, c.decided.Flips
	if s.Adaptive {
		r.StopReason = c.decided.StopReason
	}
	if c.err != nil && !errors.Is(c.err, context.Canceled) {
		r.Error = c.err.Error() // e.g. every member failed in a round: scored, with its invalid votes
	}
	if ok, err := runBaselines(qctx, s, g, meter, q, &r, overBudget); !ok || err != nil {
		return Result{}, false, err
	}
	r.WallMS = time.Since(start).Milliseconds()
	return r, true, nil
}

// Check refuses a setup the run could not honour: a cost cap over a
// member whose model has no price.
func (s Setup) Check() error {
	if s.MaxCost <= 0 {
		return nil
	}
	members, err := membersOf(s)
	if err != nil {
		return err
	}
	if models := unpriced(s.Config, members); len(models) > 0 {
		return fmt.Errorf("--max-cost cannot bound calls to %s: no price (add one under models: in your configuration)", strings.Join(models, ", "))
	}
	return nil
}

// membersOf finds the council's agents.
func membersOf(s Setup) ([]*debate.Agent, error) {
	var out []*debate.Agent
	for _, name := range s.Config.Modes.Magi.Agents {
		i := slices.IndexFunc(s.Agents, func(a *debate.Agent) bool { return a.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("no agent %q for the council", name)
		}
		out = append(out, s.Agents[i])
	}
	return out, nil
}

func votesOf(votes []verdict.MagiVote) []Vote {
	out := make([]Vote, len(votes))
	for i, v := range votes {
		out[i] = Vote{Agent: v.Agent, Valid: v.Valid, Calls: v.Attempts, Tokens: v.Usage.Total(), Cost: v.Cost, Error: v.Error}
		if v.Valid {
			out[i].Answer, out[i].Confidence, out[i].Ranking, out[i].ChangedBy = string(v.Vote), v.Confidence, v.Ranking, v.ChangedBy
		}
	}
	return out
}

func cloneCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
