package magi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"

	"github.com/parleyhq/parley/providers/providertest"
)

// magiBallot is one member's answer in one round of an approve council:
// a vote word with its reasoning, or "?" for an answer that cannot be read
// (asked once more, then counted INVALID).
type magiBallot struct{ vote, reasoning string }

func (b magiBallot) text() string {
	if b.vote == "?" {
		return "I would rather not say."
	}
	return fmt.Sprintf(`{"vote":%q,"reasoning":%q,"summary":"votes %s"}`, b.vote, b.reasoning, b.vote)
}

// Reasonings in words of each member's own, so a member repeating another's
// brings no new argument and one with fresh words does.
const (
	melchiorWhy  = "Benchmarks show throughput doubles under realistic load."
	balthasarWhy = "Customers lose data when migrations fail halfway."
	casperWhy    = "Gut feeling says momentum matters more than polish."
	casperArgues = "Rollback tooling shipped yesterday eliminates halfway migration failures entirely."
)

// TestMagiVerdictsWrittenOut runs approve councils over the providers'
// HTTP fakes and checks each verdict, tally and rule against values written
// out by hand from the rules (a strict majority of the last round's votes;
// NO CONSENSUS when every vote is valid, INCOMPLETE when an invalid one
// might have decided; the guard counts a change without a new argument as
// the vote held before) — never against the code that computes them.
func TestMagiVerdictsWrittenOut(t *testing.T) {
	t.Parallel()
	A := func(why string) magiBallot { return magiBallot{"approve", why} }
	R := func(why string) magiBallot { return magiBallot{"reject", why} }
	X := func(why string) magiBallot { return magiBallot{"abstain", why} }
	I := magiBallot{vote: "?"}
	m, b, c := melchiorWhy, balthasarWhy, casperWhy
	type tally struct{ approve, reject, abstain, invalid int }
	cases := []struct {
		name       string
		rounds     int                     // 1 or 3
		guard      bool                    // guarded majority
		script     map[string][]magiBallot // by member, one ballot per round (the last repeats)
		verdict    string
		tally      tally
		rule       string
		discounted string
	}{
		{name: "three approve", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {A(b)}, "casper": {A(c)}},
			verdict: "APPROVED", tally: tally{3, 0, 0, 0}, rule: "majority"},
		{name: "two approve, one reject", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {R(b)}, "casper": {A(c)}},
			verdict: "APPROVED", tally: tally{2, 1, 0, 0}, rule: "majority"},
		{name: "two approve, one abstains", rounds: 3, script: map[string][]magiBallot{"melchior": {X(m)}, "balthasar": {A(b)}, "casper": {A(c)}},
			verdict: "APPROVED", tally: tally{2, 0, 1, 0}, rule: "majority"},
		{name: "two approve, one unreadable", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {A(b)}, "casper": {I}},
			verdict: "APPROVED", tally: tally{2, 0, 0, 1}, rule: "majority"},
		{name: "three reject", rounds: 3, script: map[string][]magiBallot{"melchior": {R(m)}, "balthasar": {R(b)}, "casper": {R(c)}},
			verdict: "REJECTED", tally: tally{0, 3, 0, 0}, rule: "majority"},
		{name: "two reject, one approve", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {R(b)}, "casper": {R(c)}},
			verdict: "REJECTED", tally: tally{1, 2, 0, 0}, rule: "majority"},
		{name: "two reject, one unreadable", rounds: 3, script: map[string][]magiBallot{"melchior": {I}, "balthasar": {R(b)}, "casper": {R(c)}},
			verdict: "REJECTED", tally: tally{0, 2, 0, 1}, rule: "majority"},
		{name: "approve, reject, abstain", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {R(b)}, "casper": {X(c)}},
			verdict: "NO CONSENSUS", tally: tally{1, 1, 1, 0}, rule: "majority"},
		{name: "three abstain", rounds: 3, script: map[string][]magiBallot{"melchior": {X(m)}, "balthasar": {X(b)}, "casper": {X(c)}},
			verdict: "NO CONSENSUS", tally: tally{0, 0, 3, 0}, rule: "majority"},
		{name: "one approve, two abstain", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {X(b)}, "casper": {X(c)}},
			verdict: "NO CONSENSUS", tally: tally{1, 0, 2, 0}, rule: "majority"},
		{name: "approve, reject, unreadable", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {R(b)}, "casper": {I}},
			verdict: "INCOMPLETE", tally: tally{1, 1, 0, 1}, rule: "majority"},
		{name: "one approve, two unreadable", rounds: 3, script: map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {I}, "casper": {I}},
			verdict: "INCOMPLETE", tally: tally{1, 0, 0, 2}, rule: "majority"},
		{name: "abstain, abstain, unreadable", rounds: 3, script: map[string][]magiBallot{"melchior": {X(m)}, "balthasar": {X(b)}, "casper": {I}},
			verdict: "INCOMPLETE", tally: tally{0, 0, 2, 1}, rule: "majority"},
		{name: "the last round decides, not the first", rounds: 3,
			script:  map[string][]magiBallot{"melchior": {R(m), A(m)}, "balthasar": {R(b), R(b), A(b)}, "casper": {R(c)}},
			verdict: "APPROVED", tally: tally{2, 1, 0, 0}, rule: "majority"},
		{name: "a majority lost in the last round", rounds: 3,
			script:  map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {A(b), A(b), X(b)}, "casper": {R(c)}},
			verdict: "NO CONSENSUS", tally: tally{1, 1, 1, 0}, rule: "majority"},
		{name: "a single round", rounds: 1, script: map[string][]magiBallot{"melchior": {R(m)}, "balthasar": {A(b)}, "casper": {R(c)}},
			verdict: "REJECTED", tally: tally{1, 2, 0, 0}, rule: "majority"},
		{name: "unguarded: a change without a new argument counts", rounds: 3,
			script:  map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {R(b)}, "casper": {X(c), A(m)}},
			verdict: "APPROVED", tally: tally{2, 1, 0, 0}, rule: "majority"},
		{name: "guarded: a change without a new argument does not count", rounds: 3, guard: true,
			script:  map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {R(b)}, "casper": {X(c), A(m)}},
			verdict: "NO CONSENSUS", tally: tally{1, 1, 1, 0}, rule: "guarded_majority", discounted: "casper"},
		{name: "guarded: a change with a new argument counts", rounds: 3, guard: true,
			script:  map[string][]magiBallot{"melchior": {A(m)}, "balthasar": {R(b)}, "casper": {X(c), R(casperArgues)}},
			verdict: "REJECTED", tally: tally{1, 2, 0, 0}, rule: "guarded_majority"},
		{name: "guarded: nobody changed", rounds: 3, guard: true,
			script:  map[string][]magiBallot{"melchior": {R(m)}, "balthasar": {R(b)}, "casper": {A(c)}},
			verdict: "REJECTED", tally: tally{1, 2, 0, 0}, rule: "guarded_majority"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fc := debatetest.NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
				script := tc.script[agent]
				return debatetest.MagiReply(script[min(round, len(script))-1].text())
			}, func(c *config.Config) { c.Modes.Magi.Guard = tc.guard })
			if tc.rounds == 1 {
				fc.SingleRound(t)
			}
			if err := fc.Engine.Submit(context.Background(), "Ship the migration tonight?"); err != nil {
				t.Fatal(err)
			}
			res := fc.Decided(t)
			if res.RoundsRun != tc.rounds {
				t.Fatalf("the council ran %d rounds, want %d", res.RoundsRun, tc.rounds)
			}
			if string(res.Verdict) != tc.verdict {
				t.Errorf("verdict %q, want %q", res.Verdict, tc.verdict)
			}
			got := tally{res.Tally["approve"], res.Tally["reject"], res.Tally["abstain"], res.Tally["invalid"]}
			if got != tc.tally || len(res.Tally) != 4 {
				t.Errorf("tally %v, want approve/reject/abstain/invalid %v", res.Tally, tc.tally)
			}
			if res.Rule != tc.rule || strings.Join(res.Discounted, ",") != tc.discounted {
				t.Errorf("rule %q discounting %v, want %q discounting %q", res.Rule, res.Discounted, tc.rule, tc.discounted)
			}
		})
	}
}
