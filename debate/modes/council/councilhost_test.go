package council

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers/providertest"
)

// agreeing are rankings where chatgpt's answer is first wherever it is shown
// (its author ranks claude first): the members agree.
var agreeing = map[string][]string{"gemini": {"chatgpt", "claude"}, "chatgpt": {"claude", "gemini"}, "claude": {"chatgpt", "gemini"}}

// splitting: each member puts a different answer first where it could
// have put chatgpt's.
var splitting = map[string][]string{"gemini": {"claude", "chatgpt"}, "chatgpt": {"gemini", "claude"}, "claude": {"chatgpt", "gemini"}}

func hostCouncil(t *testing.T, prefs map[string][]string) *fakeCouncilMode {
	return newCouncilFakes(t, func(member string, stage int, r providertest.Request) providertest.Reply {
		switch stage {
		case 1:
			return signedAnswer(member)
		case 2:
			return rankBy(r, prefs[member]...)
		}
		return providertest.Reply{Text: "The council says: use queues."}
	})
}

func allText(r providertest.Request) string {
	return r.System + "\n" + debatetest.MagiAllText(r.Messages)
}

func TestCouncilHostNoteReachesEveryRankerAndStopAfterTheRankingsSkipsTheChairman(t *testing.T) {
	t.Parallel()
	fc := hostCouncil(t, agreeing)
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Note, Text: "The budget was cut by half."}, {Action: checkpoint.Stop}}}
	fc.engine.SetHost(h, checkpoint.EachRound)
	if err := fc.engine.Submit(context.Background(), "Which queue?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	if len(h.Asked) != 2 || h.Asked[0].Kind != checkpoint.KindAnswers || h.Asked[1].Kind != checkpoint.KindRankings {
		t.Fatalf("points asked = %+v, want after the answers and after the rankings", h.Asked)
	}
	if got := h.Asked[0].Summary; got != "3 of 3 members answered" {
		t.Errorf("the answers' summary = %q", got)
	}
	if got := h.Asked[1].Summary; got != "first places: ChatGPT 2, Claude 1 · top-ranked: ChatGPT, mean rank 1.00" {
		t.Errorf("the rankings' summary = %q", got)
	}
	const note = "[Host] (after the answers): The budget was cut by half."
	for _, m := range councilMembers {
		for _, r := range fc.stageRequests(m.name, 1) {
			if strings.Contains(allText(r), "budget was cut") {
				t.Errorf("%s's answer request carries the note", m.name)
			}
		}
		ranks := fc.stageRequests(m.name, 2)
		if len(ranks) != 1 || !strings.Contains(allText(ranks[0]), note) {
			t.Errorf("%s's ranking requests (%d) lack the host's note", m.name, len(ranks))
		}
	}
	if n := len(fc.stageRequests("claude", 3)); n != 0 {
		t.Errorf("the chairman was asked %d times after a stop", n)
	}
	d := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	want := "STOPPED by the host after the rankings: 3 of 3 answers · top-ranked: ChatGPT, mean rank 1.00 · no chairman's answer"
	if d.Chairman.Status != verdict.CouncilStopped || d.StoppedAfter != "rankings" || d.Sentence != want {
		t.Errorf("decided: status %q after %q, sentence %q\nwant %q", d.Chairman.Status, d.StoppedAfter, d.Sentence, want)
	}
	var users []transcript.Entry
	for _, en := range fc.engine.History().Tail() {
		if en.Kind == transcript.KindUser {
			users = append(users, en)
		}
	}
	if len(users) != 2 || users[1].Text != "The budget was cut by half." {
		t.Errorf("user entries = %+v", users)
	}
	// The record reads the note as the host's words, not as a new council.
	if cs := verdict.CouncilsOf(fc.engine.History().Tail()); len(cs) != 1 || cs[0].Sentence != want {
		t.Errorf("record: %d councils, %+v", len(cs), cs)
	}
	answered := debatetest.EventsOf[debate.CheckpointAnswered](fc.events)
	if len(answered) != 2 || answered[1].Sentence != "the host stopped the run after the rankings" {
		t.Errorf("answered events = %+v", answered)
	}
}

func TestCouncilNoteAfterTheRankingsReachesTheChairmanAndStopAfterTheAnswers(t *testing.T) {
	t.Parallel()
	fc := hostCouncil(t, agreeing)
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Continue}, {Action: checkpoint.Note, Text: "Prefer managed services."}}}
	fc.engine.SetHost(h, checkpoint.EachRound)
	if err := fc.engine.Submit(context.Background(), "Which queue?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	chair := fc.stageRequests("claude", 3)
	if len(chair) != 1 || !strings.Contains(lastMessage(chair[0]), "[Host] (after the rankings): Prefer managed services.") {
		t.Fatalf("the chairman's request lacks the note: %+v", chair)
	}
	for _, m := range councilMembers {
		if r := fc.stageRequests(m.name, 2); len(r) != 1 || strings.Contains(allText(r[0]), "managed services") {
			t.Errorf("%s's ranking saw a note made after it", m.name)
		}
	}

	fc2 := hostCouncil(t, agreeing)
	fc2.engine.SetHost(&debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Stop}}}, checkpoint.EachRound)
	if err := fc2.engine.Submit(context.Background(), "Which queue?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc2.engine)
	for _, m := range councilMembers {
		if n := len(fc2.stageRequests(m.name, 2)) + len(fc2.stageRequests(m.name, 3)); n != 0 {
			t.Errorf("%s asked %d times after a stop after the answers", m.name, n)
		}
	}
	d := debatetest.LastOf[verdict.CouncilDecided](t, fc2.events)
	if want := "STOPPED by the host after the answers: 3 of 3 answers · no chairman's answer"; d.Sentence != want {
		t.Errorf("sentence %q, want %q", d.Sentence, want)
	}
}

func TestCouncilDroppedMemberNeitherRanksNorIsRanked(t *testing.T) {
	t.Parallel()
	fc := hostCouncil(t, agreeing)
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Drop, Member: "gemini"}, {Action: checkpoint.Continue}}}
	fc.engine.SetHost(h, checkpoint.EachRound)
	if err := fc.engine.Submit(context.Background(), "Which queue?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	if n := len(fc.stageRequests("gemini", 2)); n != 0 {
		t.Errorf("gemini ranked %d times after it was dropped", n)
	}
	for _, m := range []string{"chatgpt", "claude"} {
		r := fc.stageRequests(m, 2)
		if len(r) != 1 || strings.Contains(allText(r[0]), answerMark(memberIndex("gemini"))) {
			t.Errorf("%s was shown the dropped member's answer (%d requests)", m, len(r))
		}
	}
	d := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	for _, s := range d.Aggregate {
		if s.Member == "gemini" {
			t.Errorf("the dropped answer is in the aggregate: %+v", d.Aggregate)
		}
	}
	if d.Answers[0].Status != verdict.AnswerDropped || d.Answers[0].Error != "dropped by the host after the answers" {
		t.Errorf("gemini's answer = %+v", d.Answers[0])
	}
	chair := fc.stageRequests("claude", 3)
	if len(chair) != 1 || !strings.Contains(lastMessage(chair[0]), "(left out: dropped by the host after the answers)") {
		t.Fatalf("the chairman's prompt does not leave the dropped answer out: %+v", chair)
	}
	// Two members left: neither may go, and the chairman never may.
	p := h.Asked[1]
	if len(p.Members) != 2 || len(p.Choices) != 3 {
		t.Fatalf("second point: members %v, choices %v", p.Members, p.Choices)
	}
	for name, want := range map[string]string{
		"chatgpt":  "chatgpt cannot be dropped: a council keeps two members, each ranking the other's answer",
		ChairSeat:  "the chairman cannot be dropped: it writes the council's final answer",
		"nobody":   `"drop" is not a choice here`,
		"":         `"drop" is not a choice here`,
		"chatgpt ": `"drop" is not a choice here`,
	} {
		if err := (checkpoint.Answer{Action: checkpoint.Drop, Member: name}).Check(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("drop %q: %v, want %q", name, err, want)
		}
	}
	if err := (checkpoint.Answer{Action: checkpoint.Drop, Member: ChairSeat}).Check(h.Asked[0]); err == nil || !strings.Contains(err.Error(), "the chairman cannot be dropped") {
		t.Errorf("dropping the chairman after the answers: %v", err)
	}
	// A council offers no swap (docs/modes.md: council checkpoints).
	if _, err := checkpoint.ParseLine("swap chatgpt gemini", h.Asked[0]); err == nil || !strings.Contains(err.Error(), `"swap" is not a choice here`) {
		t.Errorf("swap at a council's point: %v", err)
	}
}

func TestCouncilDropAfterTheRankingsLeavesTheAnswerOutOfTheAggregate(t *testing.T) {
	t.Parallel()
	fc := hostCouncil(t, agreeing)
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Continue}, {Action: checkpoint.Drop, Member: "chatgpt"}}}
	fc.engine.SetHost(h, checkpoint.EachRound)
	if err := fc.engine.Submit(context.Background(), "Which queue?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	d := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	// Claude and Gemini are each placed first, once, by the other: a tie,
	// which council order breaks; ChatGPT's answer and ranking count no more.
	if len(d.Aggregate) != 2 || d.Aggregate[0].Member != "gemini" || d.Aggregate[0].MeanRank != 1 || d.Aggregate[1].Member != "claude" {
		t.Errorf("aggregate after dropping the top answer = %+v", d.Aggregate)
	}
	if d.Chairman.Status != verdict.CouncilComplete || !strings.Contains(d.Sentence, "top-ranked: Gemini, mean rank 1.00") {
		t.Errorf("decided: %q %q", d.Chairman.Status, d.Sentence)
	}
	prompt := lastMessage(fc.stageRequests("claude", 3)[0])
	if strings.Contains(prompt, "- ChatGPT ranked") || !strings.Contains(prompt, "(left out: dropped by the host after the rankings)") {
		t.Errorf("the chairman still weighs the dropped member:\n%s", prompt)
	}
}

// on_split pauses only where the members disagree: after the rankings when
// not every ranking that shows one answer puts it first; after the answers
// when they differ (prose always does).
func TestCouncilOnSplitPausesOnlyWhereTheMembersDisagree(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		prefs map[string][]string
		kinds string
	}{
		{"agreeing", agreeing, "answers"},
		{"splitting", splitting, "answers,rankings"},
	} {
		fc := hostCouncil(t, tc.prefs)
		h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Continue}, {Action: checkpoint.Continue}}}
		fc.engine.SetHost(h, checkpoint.OnSplit)
		if err := fc.engine.Submit(context.Background(), "Which queue?"); err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, p := range h.Asked {
			kinds = append(kinds, string(p.Kind))
		}
		if got := strings.Join(kinds, ","); got != tc.kinds {
			t.Errorf("%s: paused after %q, want %q", tc.name, got, tc.kinds)
		}
	}
	same := func(texts ...string) []verdict.CouncilAnswer {
		var out []verdict.CouncilAnswer
		for _, s := range texts {
			out = append(out, verdict.CouncilAnswer{Text: s, Status: string(transcript.StatusComplete)})
		}
		return out
	}
	if answersSplit(same("391", "**391.**", " 391 ")) {
		t.Error("answers that agree word for word are a split")
	}
	if !answersSplit(same("391", "392", "391")) || !answersSplit(append(same("391"), verdict.CouncilAnswer{Status: string(transcript.StatusError)})) {
		t.Error("answers that differ, or a missing answer, are no split")
	}
}

// A council whose host is gone at a checkpoint stays waiting there; another
// engine restored from the session goes on from it with the notes made
// before, runs no stage again and asks the host there again.
func TestCouncilWaitingAtACheckpointResumesElsewhere(t *testing.T) {
	t.Parallel()
	fc := hostCouncil(t, agreeing)
	gone := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Note, Text: "Mind the budget."}}}
	fc.engine.SetHost(gone, checkpoint.EachRound)
	if err := fc.engine.Submit(context.Background(), "Which queue?"); err == nil {
		t.Fatal("a council whose host is gone ended without an error")
	}
	debatetest.Settle(t, fc.engine)
	pending, ok := fc.engine.Pending()
	if !ok || pending.Kind != checkpoint.KindRankings {
		t.Fatalf("pending = %+v, %v; want the checkpoint after the rankings", pending, ok)
	}
	if d := debatetest.EventsOf[verdict.CouncilDecided](fc.events); len(d) != 0 {
		t.Errorf("a council waiting for its host decided: %+v", d)
	}

	fc2 := hostCouncil(t, agreeing)
	if err := fc2.engine.Restore(fc.engine.Info(), fc.engine.History().Tail()); err != nil {
		t.Fatal(err)
	}
	back := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Continue}}}
	fc2.engine.SetHost(back, checkpoint.EachRound)
	if err := fc2.engine.ResumeCheckpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc2.engine)
	if len(back.Asked) != 1 || back.Asked[0].Kind != checkpoint.KindRankings || back.Asked[0].Summary != pending.Summary {
		t.Errorf("asked again at %+v, want the rankings' point", back.Asked)
	}
	for _, m := range councilMembers {
		if n := len(fc2.stageRequests(m.name, 1)) + len(fc2.stageRequests(m.name, 2)); n != 0 {
			t.Errorf("%s answered or ranked again after the resume (%d)", m.name, n)
		}
	}
	chair := fc2.stageRequests("claude", 3)
	if len(chair) != 1 || !strings.Contains(lastMessage(chair[0]), "[Host] (after the answers): Mind the budget.") ||
		!strings.Contains(lastMessage(chair[0]), "ANSWER-1") {
		t.Fatalf("the chairman after the resume: %+v", chair)
	}
	if d := debatetest.LastOf[verdict.CouncilDecided](t, fc2.events); d.Chairman.Status != verdict.CouncilComplete || len(d.Aggregate) != 3 {
		t.Errorf("decided after the resume: %+v", d)
	}
	if _, still := fc2.engine.Pending(); still {
		t.Error("the checkpoint is still pending after it was answered")
	}
}

func TestCouncilCheckpointPolicyIsChecked(t *testing.T) {
	t.Parallel()
	cfg := debatetest.SpineConfig(known)
	cfg.Modes.Council.Checkpoint = "sometimes"
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "modes.council.checkpoint") {
		t.Fatalf("Validate = %v, want modes.council.checkpoint refused", err)
	}
	fc := hostCouncil(t, agreeing)
	fc.engine.Config.Modes.Council.Checkpoint = "on_split"
	if got := fc.engine.CheckpointPolicy(); got != checkpoint.OnSplit {
		t.Errorf("policy = %q, want the configuration's on_split", got)
	}
}

// checkpoint_timeout answers for a host who does not: here stop, after the
// answers, and the outcome says so.
func TestCouncilCheckpointTimeoutStops(t *testing.T) {
	t.Parallel()
	fc := hostCouncil(t, agreeing)
	fc.engine.Config.CheckpointTimeout, fc.engine.Config.CheckpointOnTimeout = time.Millisecond, "stop"
	fc.engine.SetHost(checkpoint.HostFunc(func(ctx context.Context, _ checkpoint.Point) (checkpoint.Answer, error) {
		<-ctx.Done() // a host who never answers
		return checkpoint.Answer{}, ctx.Err()
	}), checkpoint.EachRound)
	if err := fc.engine.Submit(context.Background(), "Which queue?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, fc.engine)
	d := debatetest.LastOf[verdict.CouncilDecided](t, fc.events)
	if d.Chairman.Status != verdict.CouncilStopped || !strings.HasPrefix(d.Sentence, "STOPPED by the host after the answers") {
		t.Errorf("decided: %q %q", d.Chairman.Status, d.Sentence)
	}
	answered := debatetest.EventsOf[debate.CheckpointAnswered](fc.events)
	if len(answered) != 1 || answered[0].Sentence != "no answer from the host in time: the run stopped after the answers" {
		t.Errorf("answered %+v", answered)
	}
}
