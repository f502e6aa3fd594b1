// Package dialogue is the vocabulary of the modes that take turns: an
// alternate step (AlternateTurn, its tokens, AlternateStepFinished and the
// session state a step leaves: StateStepNext, StateStepCount) and a talk's
// rounds (TalkRoundSummarised, TalkFinished, the MC's closing cue), with
// the one sentence each outcome is worded in (StepSentence,
// AlternateStoppedSentence, TalkSentence), as verdict is MAGI's and the
// council's. The modes make them (debate/modes/alternate, talk), the engine
// carries the events like its own, and every door reads them here.
// It imports nothing of the engine.
package dialogue
