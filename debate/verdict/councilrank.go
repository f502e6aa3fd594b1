package verdict

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// The council's data and its pure parts: anonymous labels, the ranking
// parser and the Borda aggregate. The mode itself is council.go.

// CouncilAnswer is one member's stage-1 answer.
type CouncilAnswer struct {
	Member   string          `json:"member"`
	Display  string          `json:"display"`
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Text     string          `json:"text"`
	Status   string          `json:"status"` // its entry's status (transcript.StatusComplete, …)
	Error    string          `json:"error,omitempty"`
	Turn     int             `json:"turn"`
	Usage    providers.Usage `json:"usage"`
	Cost     float64         `json:"cost_usd"`
	// Citations is the core's check of the [E2] ids the answer cites
	// (evidencecheck.go); Unsupported says why it counts as unsupported
	// under modes.council.evidence: required.
	Citations   evidence.Check `json:"citations,omitzero"`
	Unsupported string         `json:"unsupported,omitempty"`
}

// Valid reports whether the answer can be ranked: complete and not empty.
func (a CouncilAnswer) Valid() bool {
	return a.Status == string(transcript.StatusComplete) && strings.TrimSpace(a.Text) != ""
}

// CouncilRanking is one member's stage-2 ranking of the others' answers.
type CouncilRanking struct {
	Ranker  string `json:"ranker"`
	Display string `json:"display"`
	Valid   bool   `json:"valid"`
	// Labels maps each label the ranker saw ("Response A") to the member
	// who wrote that answer: the ranker's shuffled order, recorded.
	Labels map[string]string `json:"labels"`
	// Order is the members' answers best first (empty when invalid).
	Order      []string        `json:"order"`
	Evaluation string          `json:"evaluation,omitempty"`
	Error      string          `json:"error,omitempty"`
	Attempts   int             `json:"attempts"` // calls made: 2 when the answer had to be asked again
	Turn       int             `json:"turn"`     // history entry of the last attempt (0: no call)
	Usage      providers.Usage `json:"usage"`
	Cost       float64         `json:"cost_usd"`
}

// Cell is the place r gave member's answer as a ranking table shows it:
// "1", "2", …; "—" for the ranker's own answer (never shown to it), "✗"
// when the ranking is invalid, "·" for an answer it was not shown.
func (r CouncilRanking) Cell(member string) string {
	if member == r.Ranker {
		return "—"
	}
	if !r.Valid {
		return "✗"
	}
	for i, m := range r.Order {
		if m == member {
			return fmt.Sprint(i + 1)
		}
	}
	return "·"
}

// CouncilScore is one answer's place in the aggregate ranking.
type CouncilScore struct {
	Member  string `json:"member"`
	Display string `json:"display"`
	// Borda: in a ranking of n answers the first gets n-1 points, the last 0.
	Borda int `json:"borda"`
	// MeanRank is the mean 1-based position over the valid rankings that
	// include the answer; 0 when none does.
	MeanRank float64 `json:"mean_rank"`
	Rankings int     `json:"rankings"` // valid rankings that include it
}

// CouncilChair is stage 3: the chairman's final answer, or why there is none
// and which answer stands in for it.
type CouncilChair struct {
	Member   string          `json:"member"` // the configured agent whose model chairs
	Seat     string          `json:"seat"`   // the speaker name of the chairman's turns
	Display  string          `json:"display"`
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Text     string          `json:"text"`
	Status   string          `json:"status"` // CouncilComplete, CouncilFailed or CouncilStopped
	Error    string          `json:"error,omitempty"`
	Fallback string          `json:"fallback,omitempty"` // failed: the top-ranked answer's member
	Turn     int             `json:"turn"`
	Usage    providers.Usage `json:"usage"`
	Cost     float64         `json:"cost_usd"`
}

// Chairman statuses.
const (
	CouncilComplete = "complete"
	CouncilFailed   = "failed"
	// CouncilStopped: the host stopped the council at a checkpoint before
	// the chairman was asked (CouncilResult.StoppedAfter says where).
	CouncilStopped = "stopped"
)

// AnswerDropped is the status of a stage-1 answer whose member the host
// dropped at a checkpoint: it is ranked no further and the chairman does
// not weigh it (its Error says where it was dropped).
const AnswerDropped = "dropped"

// CouncilUsage is one seat's tokens and cost in one stage.
type CouncilUsage struct {
	Member  string          `json:"member"`
	Display string          `json:"display"`
	Model   string          `json:"model"`
	Stage   int             `json:"stage"`
	Calls   int             `json:"calls"`
	Usage   providers.Usage `json:"usage"`
	Cost    float64         `json:"cost_usd"`
}

// CouncilResult is a finished (or cancelled) council.
type CouncilResult struct {
	Question  string           `json:"question"`
	Seed      uint64           `json:"seed"` // of the label shuffles
	Answers   []CouncilAnswer  `json:"answers"`
	Rankings  []CouncilRanking `json:"rankings"`
	Aggregate []CouncilScore   `json:"aggregate"`
	Chairman  CouncilChair     `json:"chairman"`
	Seats     []CouncilUsage   `json:"seats"` // per member (and chairman) and stage
	Usage     providers.Usage  `json:"usage"`
	Cost      float64          `json:"cost_usd"`
	Cancelled bool             `json:"cancelled"`
	// Sentence is the outcome as every door prints it (CouncilSentence).
	Sentence string `json:"sentence,omitempty"`
	// Evidence is the council's evidence policy when its members had tools
	// or its configuration asks: the sentence then states coverage.
	Evidence string `json:"evidence,omitempty"`
	// StoppedAfter is the stage the host stopped the council after
	// ("answers" or "rankings"; the chairman is then CouncilStopped).
	StoppedAfter string `json:"stopped_after,omitempty"`
}

// FallbackAnswer is the answer the result falls back on when the chairman
// failed: the top-ranked valid answer.
func (r CouncilResult) FallbackAnswer() (CouncilAnswer, bool) {
	for _, a := range r.Answers {
		if r.Chairman.Fallback != "" && a.Member == r.Chairman.Fallback {
			return a, true
		}
	}
	return CouncilAnswer{}, false
}

// Aggregate scores the valid answers over the valid rankings: Borda points
// (n-1 for the first of n, 0 for the last) and the mean position. Invalid
// rankings count for nothing, and since no member is shown its own answer,
// no member's vote counts for itself. Best first: most points, then lowest
// mean rank, then council order.
func Aggregate(answers []CouncilAnswer, rankings []CouncilRanking) []CouncilScore {
	idx := map[string]int{}
	scores := make([]CouncilScore, 0, len(answers))
	var sums []int
	for _, a := range answers {
		if !a.Valid() {
			continue
		}
		idx[a.Member] = len(scores)
		scores = append(scores, CouncilScore{Member: a.Member, Display: a.Display})
		sums = append(sums, 0)
	}
	for _, r := range rankings {
		if !r.Valid {
			continue
		}
		for pos, m := range r.Order {
			i, ok := idx[m]
			if !ok || m == r.Ranker {
				continue
			}
			scores[i].Borda += len(r.Order) - 1 - pos
			scores[i].Rankings++
			sums[i] += pos + 1
		}
	}
	for i := range scores {
		if scores[i].Rankings > 0 {
			scores[i].MeanRank = float64(sums[i]) / float64(scores[i].Rankings)
		}
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := scores[order[x]], scores[order[y]]
		if a.Borda != b.Borda {
			return a.Borda > b.Borda
		}
		am, bm := a.MeanRank, b.MeanRank
		if am == 0 {
			am = 1e9 // unranked goes last
		}
		if bm == 0 {
			bm = 1e9
		}
		return am < bm
	})
	out := make([]CouncilScore, len(scores))
	for i, j := range order {
		out[i] = scores[j]
	}
	return out
}
