// Package verdict is the vocabulary of a decision that MAGI, the council
// and parley bench share, and every door reads: votes and ballots and their
// parsers (ParseVote, ParseAnswer and the answer types), the decision
// rules (Decide, DecideAnswers, the adaptive stop, the guard against
// conformity, the weighted answer), a MAGI council's rounds and result,
// the council's answers, rankings and aggregate, and the one sentence each
// outcome is worded in (VerdictSentence, NoDecision, CouncilSentence).
//
// It holds values, pure functions and the events MAGI and the council emit
// (VoteCast, MagiDecided, CouncilRanked, …; events.go): the modes make them
// (debate/modes/magi, council), the engine carries the events like its own,
// every door reads them, and bench replays the rules over saved councils.
// It imports nothing of the engine.
package verdict
