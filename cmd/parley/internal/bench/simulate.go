package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// SimAccuracy is each simulated member's chance of a right round-1 answer,
// by council seat (MELCHIOR, BALTHASAR, CASPER by default).
var SimAccuracy = []float64{0.80, 0.70, 0.60}

// The simulated members' behaviour in rounds 2 and 3 (docs/bench.md, "The simulation").
const (
	simConform  = 0.55 // joins an answer two shown opinions share, without an argument
	simDefer    = 0.30 // joins a peer at least simDeferGap more confident, without an argument
	simDeferGap = 0.20
	simPersuade = 0.40 // a wrong member takes a shown right answer, naming the step it missed
	simShared   = 0.50 // a wrong round-1 answer is the problem's common slip (members share it)
	// simSharedSame is simShared between draws of one model (the
	// homogeneous council, self-consistency): one model's slips repeat.
	simSharedSame = 0.80
	// simRepeat is the chance a draw of one model repeats the model's own
	// first answer: a model that cannot solve a problem mostly keeps
	// failing it, so its draws are not independent.
	simRepeat = 0.60
)

// SimulationLabel opens, wherever a simulated run's report shows, the line
// that says no model answered.
const SimulationLabel = "SIMULATION"

// Simulate gives every agent a simulated member that knows the gold answers
// of qs: seat k is right in round 1 with probability SimAccuracy[k], and in
// later rounds reads the opinions it is shown and may conform to them. Every
// draw is seeded by seed, the question and the seat, so a run repeats.
func Simulate(agents []*debate.Agent, council []string, qs []Question, seed uint64) []*debate.Agent {
	gold := make(map[string]string, len(qs))
	options := map[string]int{}
	for _, q := range qs {
		gold[q.Prompt()] = q.Answer
		if len(q.Options) > 1 {
			options[q.Prompt()] = len(q.Options)
		}
	}
	out := make([]*debate.Agent, len(agents))
	for i, a := range agents {
		b := *a
		seat := len(SimAccuracy) - 1
		for k, name := range council {
			if name == a.Name {
				seat = min(k, seat)
			}
		}
		b.Provider = &simMember{gold: gold, options: options, seed: seed, seat: seat, display: a.Label()}
		out[i] = &b
	}
	return out
}

type simMember struct {
	gold    map[string]string
	options map[string]int // option questions: how many options
	seed    uint64
	seat    int
	display string
	sample  int // 0: the member itself; i > 0: independent draw i of its model
}

// Sample is another independent draw of this member's model, shown as
// display: right with the same probability, its slips shared more often.
func (s *simMember) Sample(i int, display string) providers.Provider {
	c := *s
	c.sample, c.display = i, display
	return &c
}

func (s *simMember) Name() string { return "simulation" }

func (s *simMember) Stream(_ context.Context, req providers.Request) (providers.Stream, error) {
	text := "(simulation)"
	if req.Schema != nil && req.Schema.Name == verdict.AnswerSchemaName && len(req.Messages) > 0 {
		text = s.answer(req)
	}
	in := len(req.System)
	for _, m := range req.Messages {
		in += len(m.Content)
	}
	return &oneShot{text: text, usage: providers.Usage{InputTokens: in/4 + 1, OutputTokens: len(text)/4 + 1}}, nil
}

// answer plays one round of one member.
func (s *simMember) answer(req providers.Request) string {
	q := req.Messages[0].Content
	if i := strings.LastIndex(q, "[Host]: "); i >= 0 {
		q = q[i+len("[Host]: "):]
	}
	gold, known := s.gold[q]
	if !known {
		return `{"answer": "0", "confidence": 0.1, "reasoning": "The simulation does not know this problem.", "summary": "unknown"}`
	}
	r := s.rng(q, 1)
	own, conf := s.firstAnswer(r, q, gold)
	reasoning := "Working through every quantity the problem gives, step by step, the total comes to " + own + "."
	if own != gold {
		reasoning = "Taking the numbers in the order they are listed, the result comes to " + own + "."
	}
	if s.options[q] > 0 {
		reasoning = "Weighing each option against what I know, option " + own + " fits best."
	}
	if req.Meta.Round < 2 {
		return simJSON(own, conf, reasoning, "")
	}
	if prev, ok := s.previous(req); ok {
		own, conf, reasoning = prev.Answer, prev.Confidence, prev.Reasoning
	}
	shown := s.shown(req)
	r = s.rng(q, req.Meta.Round)
	counts := map[string]int{}
	for _, o := range shown {
		counts[o.Answer]++
	}
	for _, o := range shown {
		if o.Answer != own && counts[o.Answer] >= 2 && r.Float64() < simConform {
			// Conformity: the reasoning only restates a peer's.
			return simJSON(o.Answer, o.Confidence, o.Reasoning, "")
		}
	}
	for _, o := range shown {
		if o.Answer != own && o.Confidence >= conf+simDeferGap && r.Float64() < simDefer {
			return simJSON(o.Answer, o.Confidence, o.Reasoning, "")
		}
	}
	if own != gold && counts[gold] > 0 && r.Float64() < simPersuade {
		return simJSON(gold, 0.8, "Rechecking my earlier slip against the worked steps I was shown, the total is "+gold+".",
			"A peer's working used every quantity the problem gives; mine dropped one step, which explains my different result.")
	}
	return simJSON(own, conf, reasoning, "")
}

// firstAnswer is the member's round-1 answer and confidence: right with its
// seat's probability; wrong ones are often the problem's common slip.
func (s *simMember) firstAnswer(r *rand.Rand, q, gold string) (string, float64) {
	if s.sample > 0 && r.Float64() < simRepeat {
		base := *s
		base.sample = 0
		return base.firstAnswer(base.rng(q, 1), q, gold)
	}
	p := SimAccuracy[min(s.seat, len(SimAccuracy)-1)]
	if r.Float64() < p {
		return gold, 0.55 + 0.4*r.Float64()
	}
	conf := 0.40 + 0.5*r.Float64() // wrong answers are not always less sure
	shared, own := simShared, hashOf(q, strconv.Itoa(s.seat))
	if s.sample > 0 {
		shared, own = simSharedSame, hashOf(q, strconv.Itoa(s.seat), "sample", strconv.Itoa(s.sample))
	}
	if r.Float64() < shared {
		return s.wrong(q, gold, hashOf(q)), conf
	}
	return s.wrong(q, gold, own), conf
}

// wrong is a wrong answer drawn by h: another option (the problem's
// tempting one when h is the problem's hash), or a slip of the number.
func (s *simMember) wrong(q, gold string, h uint64) string {
	if n := s.options[q]; n > 1 {
		k, g := int(h%uint64(n-1)), int(gold[0]-'A')
		if k >= g {
			k++
		}
		return string(rune('A' + k))
	}
	g, _ := strconv.Atoi(gold)
	return strconv.Itoa(slip(g, h))
}

// slip is a plausible wrong answer: a step left out, doubled or halved.
func slip(g int, h uint64) int {
	switch h % 4 {
	case 0:
		return g + 1 + int(h>>8%9)
	case 1:
		return g - 1 - int(h>>8%9)
	case 2:
		return 2 * g
	}
	if g%2 == 0 && g != 0 {
		return g / 2
	}
	return g + 10
}

func (s *simMember) rng(q string, round int) *rand.Rand {
	if s.sample > 0 {
		return rand.New(rand.NewPCG(s.seed, hashOf(q, strconv.Itoa(s.seat), strconv.Itoa(round), "sample", strconv.Itoa(s.sample))))
	}
	return rand.New(rand.NewPCG(s.seed, hashOf(q, strconv.Itoa(s.seat), strconv.Itoa(round))))
}

func hashOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// simOpinion is an opinion the member reads, as the council shows it.
type simOpinion struct {
	Who        string
	Answer     string  `json:"answer"`
	Confidence float64 `json:"confidence"`
	Reasoning  string  `json:"reasoning"`
}

var opinionLineRe = lazyregexp.New(`(?m)^\[([^\]]+)\]: (\{.*\})$`)

// shown reads the opinions of the round's prompt, without the member's own.
func (s *simMember) shown(req providers.Request) []simOpinion {
	var out []simOpinion
	for _, m := range opinionLineRe.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Content, -1) {
		var o simOpinion
		if json.Unmarshal([]byte(m[2]), &o) != nil || o.Answer == "" || m[1] == s.display {
			continue
		}
		o.Who = m[1]
		out = append(out, o)
	}
	return out
}

// previous is the member's latest answer: its round-2 opinion as shown in
// round 3, else its round-1 answer (the assistant message).
func (s *simMember) previous(req providers.Request) (simOpinion, bool) {
	for _, m := range opinionLineRe.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Content, -1) {
		var o simOpinion
		if m[1] == s.display && json.Unmarshal([]byte(m[2]), &o) == nil && o.Answer != "" {
			return o, true
		}
	}
	for _, m := range req.Messages {
		var o simOpinion
		if m.Role == providers.RoleAssistant && json.Unmarshal([]byte(m.Content), &o) == nil && o.Answer != "" {
			return o, true
		}
	}
	return simOpinion{}, false
}

func simJSON(answer string, conf float64, reasoning, changedBy string) string {
	raw, _ := json.Marshal(map[string]any{"answer": answer, "confidence": float64(int(conf*100)) / 100,
		"reasoning": reasoning, "summary": "answer " + answer, "changed_by": changedBy})
	return string(raw)
}

// oneShot streams a whole answer as one delta.
type oneShot struct {
	text  string
	usage providers.Usage
	done  bool
}

func (o *oneShot) Next() bool {
	if o.done {
		return false
	}
	o.done = true
	return true
}
func (o *oneShot) Delta() string { return o.text }
func (o *oneShot) Err() error    { return nil }
func (o *oneShot) Result() providers.Result {
	return providers.Result{Usage: o.usage, FinishReason: "stop"}
}
func (o *oneShot) Close() error { return nil }

// describeSimSet labels a simulated run on a set from a file.
func describeSimSet(name string) string {
	return fmt.Sprintf("%s: no model was called; seeded simulated members (right in round 1 with p = %.2f, %.2f, %.2f; conformity modelled) answered the questions of %s. See docs/bench.md, \"The simulation\".",
		SimulationLabel, SimAccuracy[0], SimAccuracy[1], SimAccuracy[2], sanitize.Text(filepath.Base(name)))
}

// describeSim is the simulation's one-line label for reports.
func describeSim(generated bool) string {
	what := "GSM8K test problems"
	if generated {
		what = "generated GSM8K-style problems (the real test set is not installed)"
	}
	return fmt.Sprintf("%s: no model was called; seeded simulated members (right in round 1 with p = %.2f, %.2f, %.2f; conformity modelled) answered %s. See docs/bench.md, \"The simulation\".",
		SimulationLabel, SimAccuracy[0], SimAccuracy[1], SimAccuracy[2], what)
}
