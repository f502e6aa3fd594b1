package verdict

// The events MAGI and the council emit. They satisfy debate.Event (one
// method, EventType) without importing it, so the engine carries them like
// its own and every door reads them here, beside the results they hold.

// VoteCast is a parsed MAGI vote (Valid false: INVALID for that round).
type VoteCast struct {
	Turn    int    `json:"turn"`
	Agent   string `json:"agent"`
	Round   int    `json:"round"`
	Vote    string `json:"vote"`
	Valid   bool   `json:"valid"`
	Summary string `json:"summary"`
	Error   string `json:"error,omitempty"`
}

// VerdictReached is the MAGI result after a round.
type VerdictReached struct {
	Round   int            `json:"round"`
	Verdict string         `json:"verdict"`
	Tally   map[string]int `json:"tally"`
	// Note says how the council decided (DecisionNote: the rule, an
	// adaptive stop and the calls it saved), as the verdict line ends.
	Note string `json:"note,omitempty"`
	// Sentence is the outcome in the words every door prints (console,
	// headless, sessions show, export, web page, MCP): VerdictSentence.
	Sentence string `json:"sentence"`
}

// MagiRoundFinished is one MAGI round's votes in member order, with the
// members whose vote differs from their previous round's.
type MagiRoundFinished struct {
	Round   int        `json:"round"`
	Of      int        `json:"of"` // rounds this council runs
	Votes   []MagiVote `json:"votes"`
	Changed []string   `json:"changed"` // agent names; empty in round 1
}

// MagiDecided is a council's outcome: verdict, tally, every round's votes,
// flips, and tokens and cost per member. Cancelled councils have no
type MagiDecided struct {
	MagiResult
	RoundsRun int `json:"rounds_run"`
}

// CouncilAnswersCollected is a council's stage 1: every member's answer in
// council order, and the seed of the label shuffles of stage 2.
type CouncilAnswersCollected struct {
	Question string          `json:"question"`
	Seed     uint64          `json:"seed"`
	Answers  []CouncilAnswer `json:"answers"`
}

// CouncilRankingCast is one member's stage-2 ranking (Valid false: it could
// not be read after a retry, or the call failed; Error says which).
type CouncilRankingCast struct {
	CouncilRanking
}

// CouncilRanked closes stage 2: every ranking and the aggregate, best first.
type CouncilRanked struct {
	Rankings  []CouncilRanking `json:"rankings"`
	Aggregate []CouncilScore   `json:"aggregate"`
}

// CouncilDecided is a council's outcome: the chairman's answer (status
// complete), or failed with the top-ranked answer named as the fallback.
type CouncilDecided struct {
	CouncilResult
}

func (VoteCast) EventType() string                { return "vote" }
func (VerdictReached) EventType() string          { return "verdict" }
func (MagiRoundFinished) EventType() string       { return "magi_round_finished" }
func (MagiDecided) EventType() string             { return "magi_decided" }
func (CouncilAnswersCollected) EventType() string { return "council_answers_collected" }
func (CouncilRankingCast) EventType() string      { return "council_ranking_cast" }
func (CouncilRanked) EventType() string           { return "council_ranked" }
func (CouncilDecided) EventType() string          { return "council_decided" }
