package debate_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/fieldstream"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers/providertest"
)

// A MAGI member's JSON answer, streamed through the real adapters in small
// chunks, reaches subscribers as prose deltas and a completed vote; the raw
// text rides along for the record, and the stored entry stays the vote.
func TestStructuredTurnsStreamAsProse(t *testing.T) {
	t.Parallel()
	answer := `{"vote": "reject", "reasoning": "As CASPER, on \"should we\" — no: the evidence is thin.", "summary": "Too thin."}`
	var chunks []string
	for i := 0; i < len(answer); i += 5 {
		chunks = append(chunks, answer[i:min(i+5, len(answer))])
	}
	fc := NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		if agent == "casper" {
			return providertest.Reply{Chunks: chunks}
		}
		return MagiReply("I would rather not say.") // not JSON: streamed as its own text, marked raw
	})
	fc.SingleRound(t)
	if err := fc.Engine.Submit(context.Background(), "Adopt the four-day week?"); err != nil {
		t.Fatal(err)
	}
	Settle(t, fc.Engine)
	prose, raw := map[string]*strings.Builder{}, map[string]*strings.Builder{}
	fields := map[string]string{}
	for _, ev := range fc.Events.All() {
		switch ev := ev.(type) {
		case TextDelta:
			if prose[ev.Agent] == nil {
				prose[ev.Agent], raw[ev.Agent] = &strings.Builder{}, &strings.Builder{}
			}
			prose[ev.Agent].WriteString(ev.Text)
			raw[ev.Agent].WriteString(ev.Raw)
			if ev.Agent == "balthasar" && ev.Text != "" && ev.Field != fieldstream.Raw {
				t.Errorf("balthasar's unreadable answer streamed as field %q", ev.Field)
			}
		case FieldCompleted:
			if ev.Agent == "casper" {
				fields[ev.Field] = ev.Value
				if prose["casper"] == nil || !strings.Contains(prose["casper"].String(), "evidence") {
					// the vote is the first field: it completes before any prose arrives
					if ev.Field != "vote" {
						t.Errorf("field %s completed before the prose before it", ev.Field)
					}
				}
			}
		}
	}
	want := "As CASPER, on \"should we\" — no: the evidence is thin.\n\nToo thin."
	if got := prose["casper"].String(); got != want {
		t.Errorf("casper's streamed prose = %q, want %q", got, want)
	}
	if got := raw["casper"].String(); got != answer {
		t.Errorf("casper's raw text = %q, want the answer as sent", got)
	}
	if fields["vote"] != "reject" || len(fields) != 1 {
		t.Errorf("completed fields = %v, want the vote", fields)
	}
	if got := prose["balthasar"].String(); !strings.Contains(got, "I would rather not say.") {
		t.Errorf("balthasar's unreadable answer streamed as %q, want its text", got)
	}
	res := fc.Decided(t)
	if v := res.Rounds[0][2]; !v.Valid || v.Vote != verdict.VoteReject {
		t.Errorf("casper's vote = %+v", v)
	}
}
