package verdict

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestNormalizeAnswer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		typ       AnswerType
		in, want  string
		wantError bool
	}{
		{AnswerNumber, "1,000", "1000", false},
		{AnswerNumber, "1000.0", "1000", false},
		{AnswerNumber, " 1000 ", "1000", false},
		{AnswerNumber, "-0", "0", false},
		{AnswerNumber, "The answer is -2,345.50.", "-2345.5", false},
		{AnswerNumber, "1e3", "1000", false},
		{AnswerNumber, "1,5", "", true},
		{AnswerNumber, "3 or 4", "", true},
		{AnswerNumber, "many", "", true},
		{AnswerOption, "(b)", "B", false},
		{AnswerOption, "Option C", "C", false},
		{AnswerOption, "A) 37 × 48", "A", false},
		{AnswerOption, "banana", "", true},
		{AnswerText, "  Paris.  ", "paris", false},
		{AnswerText, "New   York", "new york", false},
		{AnswerText, "...", "", true},
		{AnswerText, "red\x1b[31m team\u200b", "red [31m team", false},
		{AnswerApprove, "Approved", "approve", false},
	} {
		got, err := NormalizeAnswer(c.typ, c.in)
		if (err != nil) != c.wantError || got != c.want {
			t.Errorf("NormalizeAnswer(%s, %q) = %q, %v; want %q (error %v)", c.typ, c.in, got, err, c.want, c.wantError)
		}
	}
}

func TestParseAnswerReadsTheStructuredReply(t *testing.T) {
	t.Parallel()
	b, err := ParseAnswer(AnswerNumber, "Sure:\n```json\n{'Answer': 1234.0, 'confidence': 85, 'reasoning': 'Products first.',}\n```")
	if err != nil || b.Answer != "1234" || b.Vote != "1234" || b.Confidence != 0.85 || b.Summary != "Products first." {
		t.Fatalf("got %+v, %v", b, err)
	}
	if b.JSON() != `{"answer":"1234","confidence":0.85,"reasoning":"Products first.","summary":"Products first."}` {
		t.Errorf("canonical form %s", b.JSON())
	}
	if _, err := ParseAnswer(AnswerOption, `{"answer": "maybe", "reasoning": "r"}`); err == nil || !strings.Contains(err.Error(), "not an option letter") {
		t.Errorf("bad option read: %v", err)
	}
	if _, err := ParseAnswer(AnswerText, `{"vote": "approve", "reasoning": "r"}`); err == nil || !strings.Contains(err.Error(), `"answer"`) {
		t.Errorf("a vote object is not an answer: %v", err)
	}
}

func TestDecideAnswers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		votes   []Vote
		verdict Verdict
	}{
		{[]Vote{"42", "42", "41"}, "42"},
		{[]Vote{"42", "41", "40"}, VerdictNoConsensus},
		{[]Vote{"42", "42", VoteInvalid}, "42"},
		{[]Vote{"42", "41", VoteInvalid}, VerdictIncomplete},
		{[]Vote{"42", VoteInvalid, VoteInvalid}, VerdictIncomplete},
		{[]Vote{"B", "B", "A", "A", "C"}, VerdictNoConsensus},
		{nil, VerdictIncomplete},
	} {
		if got, _ := DecideAnswers(c.votes); got != c.verdict {
			t.Errorf("DecideAnswers(%v) = %s, want %s", c.votes, got, c.verdict)
		}
	}
	if line := AnswerTallyLine(TallyAnswers([]Vote{"7", "9", "7", VoteInvalid})); line != "2 × 7, 1 × 9, 1 invalid" {
		t.Errorf("tally line %q", line)
	}
}

func FuzzNormalizeAnswer(f *testing.F) {
	for _, s := range []string{"1,000", "1000.0", "-0", "(b)", "Option C", "  Paris. ", "1e400", "−5", "1,5", "١٢٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, typ := range AnswerTypes {
			got, err := NormalizeAnswer(typ, in)
			if err != nil {
				continue
			}
			if got == "" {
				t.Fatalf("%s %q normalised to nothing", typ, in)
			}
			for _, r := range got {
				if unicode.IsControl(r) {
					t.Fatalf("%s %q kept a control character: %q", typ, in, got)
				}
			}
			again, err := NormalizeAnswer(typ, got)
			if err != nil || again != got {
				t.Fatalf("%s: %q → %q → %q, %v: not idempotent", typ, in, got, again, err)
			}
		}
	})
}

// FuzzParseAnswer reads model output as an option answer with its ranking
// and changed_by: what it accepts reads back the same from its canonical
// form, the ranking starts with the answer and names each option once.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"answer":"B","confidence":0.7,"reasoning":"r","summary":"s","changed_by":"","ranking":["B","a","(c)","B",7]}`,
		`{"answer":"(c)","reasoning":"r","ranking":"ABC"}`, `x {'answer': 'a', 'reasoning': 'r', 'changed_by': 'MELCHIOR: the carry',}`,
		`{"answer":"Z","reasoning":"r","ranking":[null,{},"Q","q"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, typ := range []AnswerType{AnswerOption, AnswerNumber} {
			b, err := ParseAnswer(typ, in)
			if err != nil {
				continue
			}
			if len(b.Ranking) > 0 && b.Ranking[0] != b.Answer {
				t.Fatalf("ranking %v does not start with the answer %q", b.Ranking, b.Answer)
			}
			seen := map[string]bool{}
			for _, l := range b.Ranking {
				if len(l) != 1 || l[0] < 'A' || l[0] > 'Z' || seen[l] {
					t.Fatalf("ranking %v: %q", b.Ranking, l)
				}
				seen[l] = true
			}
			again, err := ParseAnswer(typ, b.JSON())
			if err != nil || !reflect.DeepEqual(again, b) {
				t.Fatalf("canonical %s reads back as %+v, %v; want %+v", b.JSON(), again, err, b)
			}
		}
	})
}
