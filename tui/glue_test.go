package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"context"
	"strings"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/fieldstream"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// glueAnswers are fixed answers of every shape a model streams.
var glueAnswers = map[string]string{
	"prose": "The evidence is thinner than the proposal claims, and real costs are contained with a plan. " +
		"A proposal and real data should meet before the vote; _(offline demo)_ answers say so too.\n\n" +
		"A second paragraph keeps going with ordinary words so that lines wrap more than once in a panel.",
	"list":  "Three steps:\n\n1. measure the queue depth first\n2. cap the wait at the deadline\n3. give up **cleanly** and log it\n\n- one more point\n- and `code` inline\n",
	"code":  "Before the code.\n\n```\nfor attempt := 0; attempt < 5; attempt++ {\n    call()\n}\n```\n\nAfter the code, with words.\n\n```go\nreturn ctx.Err()\n```\n",
	"cjk":   "証拠は薄いです。 提案は 良い ですが、 コストは 高い。\n\n中文 的 回答 也 要 正确 显示。",
	"emoji": "Ship it 🚀 after the tests pass ✅ and the team agrees 👍🏽 on the plan 🙂 today.",
}

// screenWords are the words of rendered lines as a reader sees them:
// Markdown marks and borders are not words, each CJK character and each
// emoji is one.
func screenWords(lines []string) []string {
	var words []string
	var cur strings.Builder
	end := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, l := range lines {
		for _, r := range ansi.Strip(l) {
			switch {
			case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || unicode.Is(unicode.So, r):
				end()
				words = append(words, string(r))
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				cur.WriteRune(r)
			default:
				end()
			}
		}
		end()
	}
	return words
}

// prefixOf reports whether got is, in order, a prefix of want, its last
// word possibly a prefix of its word.
func prefixOf(got, want []string) bool {
	if len(got) > len(want) {
		return false
	}
	for i, w := range got {
		if w != want[i] && (i != len(got)-1 || !strings.HasPrefix(want[i], w)) {
			return false
		}
	}
	return true
}

// Every frame of an answer streamed a byte at a time (multi-byte runes
// split too) shows, in the panel and in the transcript, words that are a
// prefix of the final answer's words: none glued, none lost, none reordered.
func TestStreamedWordsNeverGlue(t *testing.T) {
	t.Parallel()
	for name, answer := range glueAnswers {
		for _, chunking := range []string{"bytes", "words"} {
			t.Run(name+"/"+chunking, func(t *testing.T) { checkNoGlue(t, answer, chunkings[chunking](answer)) })
		}
	}
}

// chunkings cut an answer into deltas: a byte each, or a word with the
// space after it (as many models send tokens).
var chunkings = map[string]func(string) []string{
	"bytes": func(s string) []string {
		out := make([]string, len(s))
		for i := 0; i < len(s); i++ { // bytes, not runes: a rune is split too
			out[i] = s[i : i+1]
		}
		return out
	},
	"words": func(s string) []string {
		var out []string
		for s != "" {
			i := strings.IndexAny(s, " \n")
			if i < 0 {
				return append(out, s)
			}
			out, s = append(out, s[:i+1]), s[i+1:]
		}
		return out
	},
}

func checkNoGlue(t *testing.T, answer string, chunks []string) {
	{
		{
			e := testEngine(t, 0)
			m := New(testOptions(e))
			defer m.Close()
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 120})
			a, _ := e.Agent("gemini")
			en := transcript.Entry{Turn: 1, Kind: transcript.KindReply, Speaker: a.Name, Display: a.Label(), Model: a.Model, Status: transcript.StatusStreaming, Started: fixedNow}
			m.apply(debate.TurnStarted{Entry: en})
			p := m.byName[a.Name]
			frame := func() (panelWords, transcriptWords []string) {
				return screenWords(p.answer.Lines(m.md, max(p.width-4, 1))), screenWords(m.tr.item(0)[1:])
			}
			en.Text, en.Status = answer, transcript.StatusComplete
			final := New(testOptions(e))
			defer final.Close()
			final.Update(tea.WindowSizeMsg{Width: 160, Height: 120})
			final.apply(debate.TurnStarted{Entry: en})
			final.apply(debate.TurnFinished{Entry: en})
			fp := final.byName[a.Name]
			wantPanel, wantTranscript := screenWords(fp.answer.Lines(final.md, max(fp.width-4, 1))), screenWords(final.tr.item(0)[1:])
			if len(wantPanel) < 10 || len(wantTranscript) < 10 {
				t.Fatalf("final words: panel %q transcript %q", wantPanel, wantTranscript)
			}
			for i, c := range chunks {
				m.apply(debate.TextDelta{Turn: 1, Agent: a.Name, Text: c})
				pw, tw := frame()
				if !prefixOf(pw, wantPanel) {
					t.Fatalf("after %d deltas the panel shows %q\nnot a prefix of %q\n%q", i+1, pw, wantPanel, p.answer.Lines(m.md, max(p.width-4, 1)))
				}
				if !prefixOf(tw, wantTranscript) {
					t.Fatalf("after %d deltas the transcript shows %q\nnot a prefix of %q", i+1, tw, wantTranscript)
				}
			}
		}
	}
}

// A MAGI council streams its members' reasoning as prose: no frame shows a
// brace, a key or an escaped quote, and a member's vote is on its panel
// before its turn is over, once the vote field is complete.
func TestCouncilVotesStreamAsProse(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	if err := e.SetMode("magi"); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(e))
	defer m.Close()
	m.bus.frame = 0
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "Adopt the four-day week?") }()
	votedWhileStreaming := false
	for finished := false; !finished; {
		batch, ok := m.bus.Wait().(eventsMsg)
		if !ok {
			t.Fatal("the event bus closed")
		}
		for _, ev := range batch { // a frame after every event: however the events are batched
			m.Update(eventsMsg{ev})
			screen := ansi.Strip(strings.Join(m.frame(), "\n"))
			for _, bad := range []string{`{"`, `"vote"`, `\"`, `"reasoning"`} {
				if strings.Contains(screen, bad) {
					t.Fatalf("the screen shows %q while the council streams:\n%s", bad, screen)
				}
			}
			for _, p := range m.panels {
				if p.state == stateStreaming && len(p.votes) > 0 && p.votes[len(p.votes)-1].Round == p.round {
					votedWhileStreaming = true
				}
			}
			if _, ok := ev.(debate.ExchangeFinished); ok {
				finished = true
			}
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !votedWhileStreaming {
		t.Error("no vote showed on a panel before its turn finished")
	}
}

// A list item arriving word by word keeps one space after its marker, as
// the finished render has it.
func TestArrivingListItemKeepsItsSpacing(t *testing.T) {
	t.Parallel()
	var s streamingText
	md := newMarkdown(newTheme(prefs.ThemeDark))
	tokens := []string{"Intro.\n\n", "1. ", "First ", "item.\n", "2. ", "Second ", "item.\n", "3. ", "Consider ", "the ", "trade-off"}
	for _, tok := range tokens {
		s.Append(tok)
		s.Lines(md, 60) // a frame per token
	}
	plain := func(lines []string) string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = strings.TrimRight(ansi.Strip(l), " ")
		}
		return strings.Join(out, "\n")
	}
	got := plain(s.Lines(md, 60))
	if want := plain(md.Render(strings.Join(tokens, ""), 60)); got != want {
		t.Fatalf("arriving item %q, finished %q", got, want)
	}
}

// An answer that does not read as a vote is shown as the model sent it,
// marked not parsed, in the panel and in the transcript; the panel says it
// is not a valid vote, and why (it said "✓ done" over it).
func TestUnparsedVoteShowsItsTextMarked(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	if err := e.SetMode("magi"); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(e))
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a, _ := e.Agent("melchior")
	en := transcript.Entry{Turn: 1, Kind: transcript.KindVote, Round: 1, Speaker: a.Name, Display: a.Label(), Model: a.Model, Status: transcript.StatusStreaming, Started: fixedNow}
	m.apply(debate.TurnStarted{Entry: en})
	m.apply(debate.TextDelta{Turn: 1, Agent: a.Name, Field: fieldstream.Raw, Text: "I would rather not vote."})
	if screen := ansi.Strip(strings.Join(m.frame(), "\n")); !strings.Contains(screen, "not parsed") || !strings.Contains(screen, "I would rather not vote.") {
		t.Fatalf("streaming, the unparsed answer is not shown marked:\n%s", screen)
	}
	en.Text, en.Status, en.Vote, en.Error = "I would rather not vote.", transcript.StatusComplete, string(verdict.VoteInvalid), "unreadable vote: no JSON object found"
	m.apply(debate.TurnFinished{Entry: en})
	screen := ansi.Strip(strings.Join(m.frame(), "\n"))
	if strings.Count(screen, "not parsed") < 2 || strings.Count(screen, "I would rather not vote.") < 2 {
		t.Fatalf("finished, panel and transcript do not both show the text marked:\n%s", screen)
	}
	if flat := strings.Join(strings.Fields(screen), " "); !strings.Contains(flat, "✗ not a valid vote") || strings.Contains(screen, "✓ done") ||
		strings.Count(flat, "unreadable vote: no JSON") < 2 {
		t.Fatalf("finished, the panel does not say the vote is not valid, and why:\n%s", screen)
	}
}
