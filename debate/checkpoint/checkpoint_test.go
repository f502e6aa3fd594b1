package checkpoint

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var round = Point{Kind: KindRound, Round: 1, Of: 3, Members: []string{"melchior", "casper"}, Agents: []string{"gpt"},
	Choices: []Action{Continue, Note, Drop, Swap, Stop}}

var tool = Point{Kind: KindTool, Members: []string{"gpt"}, Choices: ToolChoices, Tool: &ToolCall{Agent: "gpt", Tool: "fetch_url"}}

func TestParseLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p    Point
		line string
		want Answer
		err  string
	}{
		{round, "", Answer{Action: Continue}, ""},
		{round, "  \n", Answer{Action: Continue}, ""},
		{round, "stop", Answer{Action: Stop}, ""},
		{round, "STOP\n", Answer{Action: Stop}, ""},
		{round, "drop casper", Answer{Action: Drop, Member: "casper"}, ""},
		{round, "drop nobody", Answer{}, `no member "nobody"`},
		{round, "swap casper gpt", Answer{Action: Swap, Member: "casper", With: "gpt"}, ""},
		{round, "swap casper", Answer{}, "swap NAME AGENT"},
		{round, "swap casper melchior", Answer{}, `"melchior" already sits in this run`},
		{round, "swap casper nobody", Answer{}, `"nobody" cannot take a seat`},
		{round, "SWAP casper   gpt ", Answer{Action: Swap, Member: "casper", With: "gpt"}, ""},
		{round, "swap nobody gpt", Answer{}, `no member "nobody"`},
		{round, "The budget was cut.", Answer{Action: Note, Text: "The budget was cut."}, ""},
		{round, "note stop means stop", Answer{Action: Note, Text: "stop means stop"}, ""},
		{round, "note", Answer{}, "a note needs its text"},
		{round, "approve", Answer{}, "not a choice here"},
		{tool, "", Answer{Action: Approve}, ""},
		{tool, "approve", Answer{Action: Approve}, ""},
		{tool, "deny not today", Answer{Action: Deny, Text: "not today"}, ""},
		{tool, "deny", Answer{Action: Deny, Text: "denied by the host"}, ""},
		{tool, "no reading files", Answer{Action: Deny, Text: "no reading files"}, ""},
		{tool, "stop", Answer{}, "not a choice here"},
		{round, strings.Repeat("x", MaxText+1), Answer{}, "longer than"},
	} {
		got, err := ParseLine(c.line, c.p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q = %+v, %v; want %+v", c.line, got, err, c.want)
		}
	}
}

func TestKeptSeatMaySwapWhenSwappable(t *testing.T) {
	t.Parallel()
	p := round
	p.Kept = []Kept{{Name: "melchior", Why: "melchior leads", Swappable: true}, {Name: "casper", Why: "casper stays"}}
	if _, err := ParseLine("drop melchior", p); err == nil || err.Error() != "melchior leads" {
		t.Errorf("drop melchior: %v", err)
	}
	if a, err := ParseLine("swap melchior gpt", p); err != nil || a.With != "gpt" {
		t.Errorf("swap melchior gpt: %+v, %v", a, err)
	}
	if _, err := ParseLine("swap casper gpt", p); err == nil || err.Error() != "casper stays" {
		t.Errorf("swap casper gpt: %v", err)
	}
	if got := p.Swappable(); len(got) != 1 || got[0] != "melchior" {
		t.Errorf("swappable %v", got)
	}
}

func TestParsePolicyAndPauses(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]Policy{"": Never, "never": Never, " each_round ": EachRound, "on_split": OnSplit} {
		if got, err := ParsePolicy(s); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParsePolicy("always"); err == nil || !strings.Contains(err.Error(), "never, each_round, on_split") {
		t.Errorf("ParsePolicy(always) = %v", err)
	}
	split, agreed := Point{Kind: KindRound, Split: true}, Point{Kind: KindRound}
	for _, c := range []struct {
		pol  Policy
		p    Point
		want bool
	}{
		{Never, split, false}, {EachRound, agreed, true}, {OnSplit, agreed, false}, {OnSplit, split, true},
		{Never, tool, true}, // a call under ask is asked whatever the policy
	} {
		if got := c.pol.Pauses(c.p); got != c.want {
			t.Errorf("%s pauses at %+v = %v", c.pol, c.p, got)
		}
	}
}

func TestSentences(t *testing.T) {
	t.Parallel()
	p := round
	p.Summary = "2 approve,\n1 reject"
	for got, want := range map[string]string{
		PointSentence(p):                                            "CHECKPOINT after round 1 of 3: 2 approve, 1 reject",
		AnswerSentence(p, Answer{Action: Stop}):                     "the host stopped the run after round 1 of 3",
		AnswerSentence(p, Answer{Action: Note, Text: "x"}):          "the host added a note after round 1 of 3",
		AnswerSentence(p, Answer{Action: Drop, Member: "c"}):        "the host dropped c after round 1 of 3",
		AnswerSentence(tool, Answer{Action: Deny, Text: "no\nway"}): "the host denied fetch_url to gpt: no way",
		AnswerSentence(tool, Answer{Action: Approve}):               "the host approved fetch_url for gpt",
		PointSentence(tool):                                         "CHECKPOINT before gpt's call to fetch_url",
	} {
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}

// FuzzParseLine: any line parses to an answer the point takes, or to an
// error; never a panic, never an answer outside the choices or bounds.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"", "stop", "drop casper", "swap casper gpt", "deny no", "approve", "note x", "\x00", "drop", "swap  gpt"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, atTool bool) {
		p := round
		if atTool {
			p = tool
		}
		a, err := ParseLine(line, p)
		if err != nil {
			return
		}
		if err := a.Check(p); err != nil {
			t.Fatalf("%q parsed to %+v, which its point refuses: %v", line, a, err)
		}
		if utf8.RuneCountInString(a.Text) > MaxText {
			t.Fatalf("text of %d runes", utf8.RuneCountInString(a.Text))
		}
		kept := p
		kept.Kept = []Kept{{Name: "casper", Why: "casper stays"}}
		if k, err := ParseLine(line, kept); err == nil && (k.Action == Drop || k.Action == Swap) && k.Member == "casper" {
			t.Fatalf("%q %s a seat the point keeps", line, k.Action)
		}
	})
}

// A seat a point keeps is refused with its own sentence, before the
// choices are looked at, and is not offered in the prompt.
func TestKeptSeatsAreRefusedWithTheirReason(t *testing.T) {
	t.Parallel()
	p := Point{Kind: KindAnswers, Members: []string{"gemini", "chatgpt", "claude"}, Choices: []Action{Continue, Drop, Stop},
		Kept: []Kept{{Name: "chairman", Why: "the chairman cannot be dropped"}, {Name: "claude", Why: "claude stays"}}}
	if _, err := ParseLine("drop chairman", p); err == nil || err.Error() != "the chairman cannot be dropped" {
		t.Errorf("drop chairman: %v", err)
	}
	if _, err := ParseLine("drop claude", p); err == nil || err.Error() != "claude stays" {
		t.Errorf("drop claude: %v", err)
	}
	if a, err := ParseLine("drop gemini", p); err != nil || a.Member != "gemini" {
		t.Errorf("drop gemini: %+v, %v", a, err)
	}
	if got := p.Prompt(); got != "Enter: continue · drop NAME (gemini, chatgpt) · stop" {
		t.Errorf("prompt %q", got)
	}
	p.Choices = []Action{Continue, Stop} // kept: refused with the reason even where drop is no choice
	if _, err := ParseLine("drop claude", p); err == nil || err.Error() != "claude stays" {
		t.Errorf("drop claude without the choice: %v", err)
	}
}
