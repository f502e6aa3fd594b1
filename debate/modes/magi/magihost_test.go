package magi

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers/providertest"
)

// splitCouncil votes approve, approve, reject in every round.
func splitCouncil(t *testing.T, adjust ...func(*config.Config)) *debatetest.FakeCouncil {
	votes := map[string]verdict.Vote{"melchior": verdict.VoteApprove, "balthasar": verdict.VoteApprove, "casper": verdict.VoteReject}
	return debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, votes[agent]))
	}, adjust...)
}

func TestMagiHostNoteReachesEveryLaterRoundAndStopEndsTheCouncil(t *testing.T) {
	t.Parallel()
	fc := splitCouncil(t)
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Note, Text: "The budget was cut by half."}, {Action: checkpoint.Stop}}}
	fc.Engine.SetHost(h, checkpoint.EachRound)
	if err := fc.Engine.Submit(context.Background(), "Should we ship on Friday?"); err != nil {
		t.Fatal(err)
	}
	d := fc.Decided(t)
	if len(h.Asked) != 2 || h.Asked[0].Round != 1 || h.Asked[1].Round != 2 || !h.Asked[0].Split {
		t.Fatalf("points asked = %+v, want after rounds 1 and 2 of a split council", h.Asked)
	}
	if got := h.Asked[0].Summary; got != "2 approve, 1 reject, 0 abstain, 0 invalid" {
		t.Errorf("round 1's summary = %q", got)
	}
	for _, m := range debatetest.MagiMembers {
		reqs := fc.Requests(m.Name)
		if len(reqs) != 2 {
			t.Fatalf("%s got %d requests, want 2 (stopped after round 2)", m.Name, len(reqs))
		}
		if strings.Contains(debatetest.MagiAllText(reqs[0].Messages), "budget was cut") {
			t.Errorf("%s saw the note in round 1", m.Name)
		}
		if !strings.Contains(debatetest.MagiAllText(reqs[1].Messages), "[Host] (after round 1): The budget was cut by half.") {
			t.Errorf("%s's round-2 request lacks the host's note:\n%s", m.Name, debatetest.MagiAllText(reqs[1].Messages))
		}
	}
	if d.RoundsRun != 2 || d.StopReason != verdict.StopHost || d.CallsSaved != 3 {
		t.Errorf("decided: rounds %d, stop %q, saved %d", d.RoundsRun, d.StopReason, d.CallsSaved)
	}
	want := "STOPPED by the host after round 2: 2 approve, 1 reject, 0 abstain, 0 invalid · so far: APPROVED · rule: majority · 3 calls saved"
	if d.Sentence != want {
		t.Errorf("sentence = %q\nwant       %q", d.Sentence, want)
	}
	// The note is saved as the host's words, between round 1 and round 2.
	var users []transcript.Entry
	for _, en := range fc.Engine.History().Tail() {
		if en.Kind == transcript.KindUser {
			users = append(users, en)
		}
	}
	if len(users) != 2 || users[1].Text != "The budget was cut by half." || users[1].Speaker != transcript.SpeakerUser {
		t.Errorf("user entries = %+v", users)
	}
	answered := debatetest.EventsOf[debate.CheckpointAnswered](fc.Events)
	if len(answered) != 2 || answered[1].Sentence != "the host stopped the run after round 2 of 3" {
		t.Errorf("answered events = %+v", answered)
	}
	if got := debatetest.EventsOf[debate.CheckpointReached](fc.Events); len(got) != 2 || got[0].Sentence != "CHECKPOINT after round 1 of 3: 2 approve, 1 reject, 0 abstain, 0 invalid" {
		t.Errorf("reached events = %+v", got)
	}
}

func TestMagiDroppedMemberAbstainsAndIsNotAsked(t *testing.T) {
	t.Parallel()
	fc := splitCouncil(t)
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Drop, Member: "casper"}, {Action: checkpoint.Continue}}}
	fc.Engine.SetHost(h, checkpoint.OnSplit)
	if err := fc.Engine.Submit(context.Background(), "Ship?"); err != nil {
		t.Fatal(err)
	}
	d := fc.Decided(t)
	if n := len(fc.Requests("casper")); n != 1 {
		t.Errorf("casper asked %d times, want 1 (dropped after round 1)", n)
	}
	if len(h.Asked) != 2 || len(h.Asked[1].Members) != 2 {
		t.Errorf("second point offers %v, want the two members left", h.Asked)
	}
	if last := d.Rounds[2][2]; last.Vote != verdict.VoteAbstain || last.Summary != "dropped by the host after round 1" {
		t.Errorf("casper's round-3 vote = %+v", last)
	}
	if d.Verdict != verdict.VerdictApproved || d.Tally["abstain"] != 1 {
		t.Errorf("verdict %s tally %v", d.Verdict, d.Tally)
	}
}

func TestMagiOnSplitSkipsAUnanimousRoundAndNeverAsksNothing(t *testing.T) {
	t.Parallel()
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, verdict.VoteApprove))
	})
	h := &debatetest.ScriptedHost{}
	fc.Engine.SetHost(h, checkpoint.OnSplit)
	if err := fc.Engine.Submit(context.Background(), "Ship?"); err != nil {
		t.Fatal(err)
	}
	fc.Decided(t)
	if len(h.Asked) != 0 {
		t.Errorf("a unanimous council asked its host %d times under on_split", len(h.Asked))
	}
	// never (the default, or the configuration's): no point is offered.
	fc2 := splitCouncil(t, func(c *config.Config) { c.Modes.Magi.Checkpoint = "never" })
	fc2.Engine.SetHost(h, "")
	if err := fc2.Engine.Submit(context.Background(), "Ship?"); err != nil {
		t.Fatal(err)
	}
	if d := fc2.Decided(t); len(h.Asked) != 0 || d.RoundsRun != 3 {
		t.Errorf("never: asked %d times, %d rounds", len(h.Asked), d.RoundsRun)
	}
}

func TestMagiConfiguredPolicyAndAHostThatFails(t *testing.T) {
	t.Parallel()
	fc := splitCouncil(t, func(c *config.Config) { c.Modes.Magi.Checkpoint = "each_round" })
	h := &debatetest.ScriptedHost{} // no answer: the host cannot be asked
	fc.Engine.SetHost(h, "")
	err := fc.Engine.Submit(context.Background(), "Ship?")
	if err == nil || !strings.Contains(err.Error(), "no answer left") {
		t.Fatalf("Submit = %v, want the host's error", err)
	}
	if d := fc.Decided(t); !d.Cancelled || d.Sentence != "" || len(h.Asked) != 1 {
		t.Errorf("a council whose host failed: cancelled %v, sentence %q, asked %d", d.Cancelled, d.Sentence, len(h.Asked))
	}
	if n := len(fc.Requests("melchior")); n != 1 {
		t.Errorf("melchior asked %d times after the host failed, want 1", n)
	}
}

func TestMagiCheckpointPolicyIsChecked(t *testing.T) {
	t.Parallel()
	cfg := debatetest.SpineConfig(known)
	cfg.Modes.Magi.Checkpoint = "sometimes"
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "modes.magi.checkpoint") {
		t.Fatalf("Validate = %v, want modes.magi.checkpoint refused", err)
	}
}

// A council whose host is gone at its checkpoint stays waiting there, saved
// in the session; another engine restored from the session goes on from it
// with the notes and drops made before, and asks the host there again.
func TestMagiCouncilWaitingAtACheckpointResumesElsewhere(t *testing.T) {
	t.Parallel()
	fc := splitCouncil(t)
	gone := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Note, Text: "Mind the budget."}}} // then no answer: the process "ends"
	fc.Engine.SetHost(gone, checkpoint.EachRound)
	if err := fc.Engine.Submit(context.Background(), "Ship?"); err == nil {
		t.Fatal("a council whose host is gone ended without an error")
	}
	debatetest.Settle(t, fc.Engine)
	pending, ok := fc.Engine.Pending()
	if !ok || pending.Round != 2 || pending.Kind != checkpoint.KindRound {
		t.Fatalf("pending = %+v, %v; want the checkpoint after round 2", pending, ok)
	}

	fc2 := splitCouncil(t)
	if err := fc2.Engine.Restore(fc.Engine.Info(), fc.Engine.History().Tail()); err != nil {
		t.Fatal(err)
	}
	back := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Drop, Member: "casper"}}}
	fc2.Engine.SetHost(back, checkpoint.EachRound)
	if err := fc2.Engine.ResumeCheckpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := fc2.Decided(t)
	if len(back.Asked) != 1 || back.Asked[0].Round != 2 || back.Asked[0].Summary != pending.Summary {
		t.Errorf("asked again at %+v, want round 2's point", back.Asked)
	}
	for _, m := range debatetest.MagiMembers {
		reqs := fc2.Requests(m.Name)
		want := 1
		if m.Name == "casper" {
			want = 0
		}
		if len(reqs) != want {
			t.Fatalf("%s asked %d times after the resume, want %d (round 3 only)", m.Name, len(reqs), want)
		}
		if want == 1 && !strings.Contains(debatetest.MagiAllText(reqs[0].Messages), "[Host] (after round 1): Mind the budget.") {
			t.Errorf("%s's round-3 request lacks the note made before the resume", m.Name)
		}
		if want == 1 && debatetest.MagiRoundOf(reqs[0].Messages) != 3 {
			t.Errorf("%s's request is not round 3's", m.Name)
		}
	}
	if d.RoundsRun != 3 || d.Rounds[2][2].Summary != "dropped by the host after round 2" || d.Verdict != verdict.VerdictApproved {
		t.Errorf("decided: %d rounds, casper %+v, verdict %s", d.RoundsRun, d.Rounds[2][2], d.Verdict)
	}
	if _, still := fc2.Engine.Pending(); still {
		t.Error("the checkpoint is still pending after it was answered")
	}
	if err := fc2.Engine.ResumeCheckpoint(context.Background()); err != debate.ErrNoPending {
		t.Errorf("a second resume: %v, want ErrNoPending", err)
	}
}

// checkpoint_timeout answers for a host who does not: here stop.
func TestMagiCheckpointTimeoutStops(t *testing.T) {
	t.Parallel()
	fc := splitCouncil(t, func(c *config.Config) { c.CheckpointTimeout, c.CheckpointOnTimeout = time.Millisecond, "stop" })
	fc.Engine.SetHost(checkpoint.HostFunc(func(ctx context.Context, _ checkpoint.Point) (checkpoint.Answer, error) {
		<-ctx.Done() // a host who never answers
		return checkpoint.Answer{}, ctx.Err()
	}), checkpoint.EachRound)
	if err := fc.Engine.Submit(context.Background(), "Ship?"); err != nil {
		t.Fatal(err)
	}
	d := fc.Decided(t)
	if d.RoundsRun != 1 || d.StopReason != verdict.StopHost {
		t.Errorf("rounds %d, stop %q", d.RoundsRun, d.StopReason)
	}
	answered := debatetest.EventsOf[debate.CheckpointAnswered](fc.Events)
	if len(answered) != 1 || !answered[0].Answer.TimedOut || answered[0].Sentence != "no answer from the host in time: the run stopped after round 1 of 3" {
		t.Errorf("answered %+v", answered)
	}
}

// withSpare configures gaspard, an agent no MAGI seat names.
func withSpare(c *config.Config) {
	c.Agents = append(c.Agents, config.AgentSpec{Name: "gaspard", Display: "GASPARD", Provider: "openai", Model: "gpt-5", Persona: "You are the newcomer."})
}

func TestMagiSwapSeatsAnotherAgentForTheRoundsAfterIt(t *testing.T) {
	t.Parallel()
	votes := map[string]verdict.Vote{"melchior": verdict.VoteApprove, "balthasar": verdict.VoteApprove, "casper": verdict.VoteReject, "gaspard": verdict.VoteApprove}
	fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		return debatetest.MagiReply(debatetest.MagiVoteJSON(agent, round, votes[agent]))
	}, withSpare)
	h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Swap, Member: "casper", With: "gaspard"}, {Action: checkpoint.Continue}}}
	fc.Engine.SetHost(h, checkpoint.EachRound)
	if err := fc.Engine.Submit(context.Background(), "Ship?"); err != nil {
		t.Fatal(err)
	}
	d := fc.Decided(t)
	if got := h.Asked[0].Agents; len(got) != 1 || got[0] != "gaspard" || !slices.Contains(h.Asked[0].Choices, checkpoint.Swap) {
		t.Fatalf("round 1's point offers agents %v, choices %v", got, h.Asked[0].Choices)
	}
	if got := h.Asked[1].Members; !slices.Equal(got, []string{"melchior", "balthasar", "gaspard"}) || len(h.Asked[1].Agents) != 1 || h.Asked[1].Agents[0] != "casper" {
		t.Errorf("round 2's point seats %v, offers %v", got, h.Asked[1].Agents)
	}
	if n := len(fc.Requests("casper")); n != 1 {
		t.Errorf("casper asked %d times, want 1 (swapped out after round 1)", n)
	}
	reqs := fc.Requests("gaspard")
	if len(reqs) != 2 {
		t.Fatalf("gaspard asked %d times, want 2 (rounds 2 and 3)", len(reqs))
	}
	r2 := debatetest.MagiAllText(reqs[0].Messages)
	for _, want := range []string{"The host gave you CASPER's seat in this council after round 1", "MARK-casper-R1", "MARK-melchior-R1", "You are the newcomer."} {
		if !strings.Contains(r2+reqs[0].System, want) {
			t.Errorf("gaspard's round-2 request lacks %q:\n%s", want, r2)
		}
	}
	for _, msg := range reqs[0].Messages {
		if msg.Role == "assistant" {
			t.Errorf("gaspard was handed casper's words as its own: %q", msg.Content)
		}
	}
	if d.Rounds[2][2].Agent != "gaspard" || d.Verdict != verdict.VerdictApproved || d.Tally["approve"] != 3 {
		t.Errorf("round 3 seat 3 = %+v, verdict %s %v", d.Rounds[2][2], d.Verdict, d.Tally)
	}
	if len(d.Flips) != 0 {
		t.Errorf("a swap counted as a flip: %+v", d.Flips)
	}
	var names []string
	for _, u := range d.Agents {
		names = append(names, u.Agent)
		if u.Agent == "casper" && u.Calls != 1 || u.Agent == "gaspard" && u.Calls != 2 {
			t.Errorf("usage %+v", u)
		}
	}
	if !slices.Equal(names, []string{"melchior", "balthasar", "casper", "gaspard"}) {
		t.Errorf("usage lists %v", names)
	}
	answered := debatetest.EventsOf[debate.CheckpointAnswered](fc.Events)
	if len(answered) == 0 || answered[0].Sentence != "the host put gaspard in casper's seat after round 1 of 3" {
		t.Errorf("answered events = %+v", answered)
	}
}

func TestMagiSwapRefusesAnAgentAlreadySeatedOrUnknown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ with, want string }{
		{"melchior", `"melchior" already sits in this run`},
		{"nobody", `"nobody" cannot take a seat`},
	} {
		fc := splitCouncil(t, withSpare)
		h := &debatetest.ScriptedHost{Answers: []checkpoint.Answer{{Action: checkpoint.Swap, Member: "casper", With: c.with}}}
		fc.Engine.SetHost(h, checkpoint.EachRound)
		err := fc.Engine.Submit(context.Background(), "Ship?")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("swap casper %s: %v, want %q", c.with, err, c.want)
		}
		if n := len(fc.Requests("gaspard")); n != 0 {
			t.Errorf("gaspard asked %d times", n)
		}
	}
}
