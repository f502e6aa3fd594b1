package dialogue

import (
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// The events alternate and talk emit. They satisfy debate.Event (one
// method, EventType) without importing it, so the engine carries them like
// its own and every door reads them here.

// AlternateStepFinished is one alternate start turn (step 0) or step, with
// the seed's turn object and the running token totals.
type AlternateStepFinished struct {
	Step int           `json:"step"`
	Turn AlternateTurn `json:"turn"` // {"user_instruction", "<a>_output", "<b>_output", "responder", "next_responder"}
	// Error is the first failed call's error, "" when the step went through.
	Error string `json:"error,omitempty"`
	// Tokens used this step; BothTokens what both agents answering would have used.
	Tokens     int `json:"tokens"`
	BothTokens int `json:"both_tokens"`
	// Totals since the mode was built in this process.
	Totals AlternateTokens `json:"totals"`
	// Next is the display name of the agent that answers the next step.
	NextDisplay string `json:"next_display"`
	// Sentence is the step's outcome as every door prints it (StepSentence).
	Sentence string `json:"sentence,omitempty"`
}

// TalkRoundSummarised is the MC's recap after a talk round.
type TalkRoundSummarised struct {
	Round   int              `json:"round"`
	Summary transcript.Entry `json:"summary"`
}

// TalkFinished closes a talk: rounds run, whether it was stopped early, totals.
type TalkFinished struct {
	Topic   string `json:"topic"`
	Rounds  int    `json:"rounds"`
	Stopped bool   `json:"stopped"`
	// ByHost: the host stopped it at a checkpoint.
	ByHost    bool            `json:"stopped_by_host,omitempty"`
	Cancelled bool            `json:"cancelled"`
	Turns     int             `json:"turns"`
	Usage     providers.Usage `json:"usage"`
	Cost      float64         `json:"cost_usd"`
	// Planned is the rounds the talk was to run.
	Planned int `json:"planned,omitempty"`
	// Sentence is the outcome as every door prints it (TalkSentence).
	Sentence string `json:"sentence,omitempty"`
}

func (AlternateStepFinished) EventType() string { return "alternate_step_finished" }
func (TalkRoundSummarised) EventType() string   { return "talk_round_summarised" }
func (TalkFinished) EventType() string          { return "talk_finished" }
