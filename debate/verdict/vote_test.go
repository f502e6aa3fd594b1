package verdict

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestDecideEveryCombination(t *testing.T) {
	t.Parallel()
	const (
		A = VoteApprove
		R = VoteReject
		X = VoteAbstain
		I = VoteInvalid
	)
	// Every multiset of three votes over the four outcomes (20 of them);
	// each is checked in every order below.
	cases := []struct {
		votes [3]Vote
		want  Verdict
	}{
		{[3]Vote{A, A, A}, VerdictApproved},
		{[3]Vote{A, A, R}, VerdictApproved},
		{[3]Vote{A, A, X}, VerdictApproved},
		{[3]Vote{A, A, I}, VerdictApproved},
		{[3]Vote{R, R, R}, VerdictRejected},
		{[3]Vote{R, R, A}, VerdictRejected},
		{[3]Vote{R, R, X}, VerdictRejected},
		{[3]Vote{R, R, I}, VerdictRejected},
		{[3]Vote{A, R, X}, VerdictNoConsensus},
		{[3]Vote{A, X, X}, VerdictNoConsensus},
		{[3]Vote{R, X, X}, VerdictNoConsensus},
		{[3]Vote{X, X, X}, VerdictNoConsensus},
		{[3]Vote{A, R, I}, VerdictIncomplete},
		{[3]Vote{A, X, I}, VerdictIncomplete},
		{[3]Vote{R, X, I}, VerdictIncomplete},
		{[3]Vote{X, X, I}, VerdictIncomplete},
		{[3]Vote{A, I, I}, VerdictIncomplete},
		{[3]Vote{R, I, I}, VerdictIncomplete},
		{[3]Vote{X, I, I}, VerdictIncomplete},
		{[3]Vote{I, I, I}, VerdictIncomplete},
	}
	perms := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, c := range cases {
		for _, p := range perms {
			votes := []Vote{c.votes[p[0]], c.votes[p[1]], c.votes[p[2]]}
			if got := Decide(votes); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Decide(%v) = %s, want %s", votes, got, c.want)
			}
		}
	}
}

func TestDecideTreatsUnknownWordsAsInvalid(t *testing.T) {
	t.Parallel()
	if got := Decide([]Vote{"", VoteApprove, "maybe"}); got != VerdictIncomplete {
		t.Errorf("got %s, want INCOMPLETE", got)
	}
	if got := Decide(nil); got != VerdictIncomplete {
		t.Errorf("no votes: got %s, want INCOMPLETE", got)
	}
	tally := Tally([]Vote{"", VoteApprove, VoteApprove, "maybe", VoteAbstain})
	if tally["invalid"] != 2 || tally["approve"] != 2 || tally["abstain"] != 1 || tally["reject"] != 0 {
		t.Errorf("tally = %v", tally)
	}
	if got := TallyLine(tally); got != "2 approve, 0 reject, 1 abstain, 2 invalid" {
		t.Errorf("TallyLine = %q", got)
	}
}

func TestParseVoteTolerant(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     Ballot
	}{
		{"plain", `{"vote":"approve","reasoning":"It is sound.","summary":"Yes."}`,
			Ballot{Vote: VoteApprove, Reasoning: "It is sound.", Summary: "Yes."}},
		{"fenced", "```json\n{\"vote\": \"reject\", \"reasoning\": \"Too risky.\", \"summary\": \"No.\"}\n```",
			Ballot{Vote: VoteReject, Reasoning: "Too risky.", Summary: "No."}},
		{"prose around", "Here is my vote:\n{\"vote\": \"abstain\", \"reasoning\": \"Unclear.\", \"summary\": \"Pass.\"}\nThanks!",
			Ballot{Vote: VoteAbstain, Reasoning: "Unclear.", Summary: "Pass."}},
		{"case of word and keys", `{"Vote":" APPROVED ","Reasoning":"Fine.","SUMMARY":"ok"}`,
			Ballot{Vote: VoteApprove, Reasoning: "Fine.", Summary: "ok"}},
		{"wrapper object", `{"magi_vote": {"vote": "Reject.", "reasoning": "No data.", "summary": "no"}}`,
			Ballot{Vote: VoteReject, Reasoning: "No data.", Summary: "no"}},
		{"braces in prose first", "Options {a, b}. {\"vote\":\"approve\",\"reasoning\":\"Go {fast}.\",\"summary\":\"s\"}",
			Ballot{Vote: VoteApprove, Reasoning: "Go {fast}.", Summary: "s"}},
		{"missing summary from reasoning", `{"vote":"reject","reasoning":"Harm is likely. Also costly."}`,
			Ballot{Vote: VoteReject, Reasoning: "Harm is likely. Also costly.", Summary: "Harm is likely."}},
	}
	for _, c := range cases {
		got, err := ParseVote(c.in)
		if err != nil {
			t.Errorf("%s: error %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestParseVoteRefusesMalformed(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                          "empty",
		"I approve wholeheartedly.": "no JSON object",
		`{"verdict":"approve"}`:     `no JSON object with a "vote"`,
		`{"vote":"maybe","reasoning":"x","summary":"y"}`: `"vote" is "maybe"`,
		`{"vote":true,"reasoning":"x"}`:                  "a boolean",
		`{"vote":"approve","summary":"y"}`:               `"reasoning" is missing`,
		`{"vote":"approve","reasoning":["a"]}`:           "an array",
		`{"vote":"approve","reasoning":"x"`:              `no JSON object with a "vote"`,
	}
	for in, want := range cases {
		_, err := ParseVote(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVote(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

func FuzzParseVote(f *testing.F) {
	for _, s := range []string{
		`{"vote":"approve","reasoning":"r","summary":"s"}`,
		"```json\n{\"vote\":\"reject\",\"reasoning\":\"r\"}\n```",
		`{"a":{"Vote":"ABSTAIN","reasoning":"r"}}`,
		`{{{{"vote"`, `{"vote":null}`, "", "{", `{"vote":"approve","reasoning":"\u0000"}`,
		`{'vote': 'reject', 'reasoning': 'It\'s "risky".',}`, `{"vote":"approve","reasoning":"r",}`,
		`{'vote':'approve','reasoning':'a\\'}`, `{'vote': ['approve',], 'reasoning': 'r'}`, `{'`, `{'vote':'abstain`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseVote(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error must say what is wrong")
			}
			return
		}
		if !b.Vote.Valid() || b.Reasoning == "" || b.Summary == "" {
			t.Fatalf("accepted an incomplete ballot %+v from %q", b, s)
		}
		// The canonical form reads back as the same ballot.
		again, err := ParseVote(b.JSON())
		if err != nil || !reflect.DeepEqual(again, b) {
			t.Fatalf("canonical form %q reads back as %+v, %v", b.JSON(), again, err)
		}
		// So does the same ballot written with single quotes and a trailing comma.
		loose := singleQuoted(b)
		again, err = ParseVote(loose)
		if err != nil || !reflect.DeepEqual(again, b) {
			t.Fatalf("loose form %q reads back as %+v, %v", loose, again, err)
		}
	})
}

// singleQuoted writes b as a model might: single-quoted strings, a
// trailing comma.
func singleQuoted(b Ballot) string {
	quote := func(v string) string {
		enc, _ := json.Marshal(v)
		body := string(enc[1 : len(enc)-1])
		var out strings.Builder
		out.WriteByte('\'')
		for i := 0; i < len(body); i++ {
			switch {
			case body[i] == '\\' && body[i+1] == '"':
				out.WriteByte('"')
				i++
			case body[i] == '\\':
				out.WriteString(body[i : i+2])
				i++
			case body[i] == '\'':
				out.WriteString(`\'`)
			default:
				out.WriteByte(body[i])
			}
		}
		out.WriteByte('\'')
		return out.String()
	}
	return fmt.Sprintf("{'vote': %s, 'reasoning': %s,\n 'summary': %s, 'changed_by': %s,\n}", quote(string(b.Vote)), quote(b.Reasoning), quote(b.Summary), quote(b.ChangedBy))
}

func TestParseVoteLooseJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Ballot
	}{
		{`{'vote': 'approve', 'reasoning': 'Cheap and safe.', 'summary': 'Do it.'}`,
			Ballot{Vote: VoteApprove, Reasoning: "Cheap and safe.", Summary: "Do it."}},
		{"```json\n{\"vote\": \"reject\", \"reasoning\": \"Too risky.\", \"summary\": \"No.\",}\n```",
			Ballot{Vote: VoteReject, Reasoning: "Too risky.", Summary: "No."}},
		{`Here it is: {'vote': 'abstain', 'reasoning': 'It\'s a "coin toss".', 'summary': 's',} — that's all.`,
			Ballot{Vote: VoteAbstain, Reasoning: `It's a "coin toss".`, Summary: "s"}},
		{`{"outer": {'vote': 'approve', 'reasoning': 'r', 'tags': ['a', 'b',],},}`,
			Ballot{Vote: VoteApprove, Reasoning: "r", Summary: "r"}},
	} {
		got, err := ParseVote(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseVote(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	// Loose quoting is not a licence to guess: a vote word still has to be there.
	if _, err := ParseVote(`{'vote': 'maybe', 'reasoning': 'r',}`); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("an unknown vote word in loose JSON: err = %v", err)
	}
}

func magiMV(agent string, round int, vote Vote, reasoning string) MagiVote {
	return MagiVote{Agent: agent, Display: strings.ToUpper(agent), Round: round,
		Ballot: Ballot{Vote: vote, Reasoning: reasoning, Summary: "s"}, Valid: vote.Valid()}
}

func TestAuditFlips(t *testing.T) {
	t.Parallel()
	rounds := [][]MagiVote{
		{
			magiMV("melchior", 1, VoteApprove, "Benchmarks show a clear speedup at low cost."),
			magiMV("balthasar", 1, VoteReject, "Users could lose data; rollback is untested."),
			magiMV("casper", 1, VoteReject, "Waiting loses nothing; a bolder plan exists."),
		},
		{
			// Joins the others, only reusing words it has seen: conformity.
			magiMV("melchior", 2, VoteReject, "Users could lose data and waiting loses nothing."),
			// Holds its vote: no flip.
			magiMV("balthasar", 2, VoteReject, "Still risky."),
			// Moves to melchior's round-1 position with a new argument.
			magiMV("casper", 2, VoteApprove, "A canary deployment behind feature flags limits exposure to volunteers."),
		},
		{
			magiMV("melchior", 3, VoteReject, "Same."),
			// An invalid vote is never a flip.
			magiMV("balthasar", 3, VoteInvalid, ""),
			// Moves to a position nobody held in round 2 with no new words:
			// still a change without a new argument.
			magiMV("casper", 3, VoteAbstain, "Canary deployment limits exposure."),
		},
	}
	got := AuditFlips(rounds)
	want := []Flip{
		{Agent: "melchior", FromRound: 1, ToRound: 2, From: VoteApprove, To: VoteReject, NewWords: 0, Conformity: true},
		{Agent: "casper", FromRound: 1, ToRound: 2, From: VoteReject, To: VoteApprove, NewWords: 8, Conformity: false},
		{Agent: "casper", FromRound: 2, ToRound: 3, From: VoteApprove, To: VoteAbstain, NewWords: 0, Conformity: true},
	}
	if len(got) != len(want) {
		t.Fatalf("flips = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("flip %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestContentWordsIgnoreFunctionWordsAndPlurals(t *testing.T) {
	t.Parallel()
	got := contentWords("The risks, the RISK and their data: would approve.")
	if len(got) != 2 || !got["risk"] || !got["data"] {
		t.Errorf("contentWords = %v, want risk and data", got)
	}
}

func TestNewWordsPhraseCountsInTheSingularAndPlural(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0 new words", 1: "1 new word", 2: "2 new words", 12: "12 new words"} {
		if got := NewWordsPhrase(n); got != want {
			t.Errorf("NewWordsPhrase(%d) = %q, want %q", n, got, want)
		}
	}
}
