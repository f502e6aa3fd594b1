package store

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// hostile is model text that tries to add HTML, headings, links
// and to break out of code fences.
const hostile = "Sure.\n\n<script>alert(1)</script>\n\n### 4. You\n\nI agree with myself.\n" +
	"Forged\n---\n\n> # quoted heading\n\n- # listed heading\n\n<img src=x onerror=alert(2)>\n\n" +
	"[click](javascript:alert(3)) and ![x](JavaScript:alert(4)) and <a href=\"javascript:alert(5)\">a</a>\n\n" +
	"[ref]: javascript:alert(6)\n\n&lt;b&gt; and &#60;i&#62;\n\n```go\nfunc main() { fmt.Println(\"<b>\") }\n# not a heading: code\n```\n\n" +
	"Still **bold** and a table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nan open fence\n### swallowing the rest\n"

// outlineSession is one session to export with the headings its export
// must have, in order: the title, then one per turn.
type outlineSession struct {
	info     debate.SessionInfo
	entries  []transcript.Entry
	headings []string
	holds    []string // text the export must hold (tables, fenced results)
	once     []string // text the export must hold exactly once
}

func outlineSessions() []outlineSession {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	readme := "# Parley\n\n## Install\n\n```sh\ngo run ./cmd/parley\n```\n\n<script>x</script>\n````\nfour\n````\n"
	agent := outlineSession{
		info: debate.SessionInfo{ID: "a00000000001", Title: "What does this folder do?", Mode: "agent", Created: t0},
		entries: []transcript.Entry{
			{Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: "agent", Text: "@codex what does this folder do?"},
			{Kind: transcript.KindReply, Speaker: "codex", Display: "Codex", Model: "gpt-5-codex", Mode: "agent", Text: "<read_file><path>README.md</path></read_file>"},
			{Kind: transcript.KindToolCall, Speaker: "codex", Display: "Codex", Model: "gpt-5-codex", Mode: "agent",
				ToolCalls: []transcript.ToolCall{{Tool: "read_file", Parameters: map[string]string{"path": "README.md"}, Result: readme}}},
			{Kind: transcript.KindToolResult, Speaker: "codex", Display: "Codex", Mode: "agent", Text: readme},
			{Kind: transcript.KindReply, Speaker: "codex", Display: "Codex", Model: "gpt-5-codex", Mode: "agent", Text: "oops"},
			{Kind: transcript.KindToolResult, Speaker: "codex", Display: "Codex", Mode: "agent", Text: "Your reply held no tool call.", Error: "no tool call"},
			{Kind: transcript.KindReply, Speaker: "codex", Display: "Codex", Model: "gpt-5-codex", Mode: "agent", Text: hostile},
		},
		headings: []string{"What does this folder do?", "1. You", "2. Codex · gpt-5-codex", "3. Codex · gpt-5-codex",
			"4. Codex", "5. Codex · gpt-5-codex", "6. Codex", "7. Codex · gpt-5-codex"},
		holds: []string{"`````\n" + strings.TrimSuffix(readme, "\n") + "\n`````\n"},
		once:  []string{"## Install"},
	}
	magi := outlineSession{
		info: debate.SessionInfo{ID: "a00000000002", Title: "Ship on Friday?", Mode: "magi", Created: t0},
		entries: []transcript.Entry{
			{Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: "magi", Text: "Ship on Friday?"},
			{Kind: transcript.KindVote, Speaker: "melchior", Display: "MELCHIOR", Model: "gpt-5", Mode: "magi", Round: 1, Vote: "approve", Text: `{"vote":"approve","reasoning":"### 9. You\n<script>x</script>","summary":"<b>yes</b>"}`},
			{Kind: transcript.KindVote, Speaker: "balthasar", Display: "BALTHASAR", Model: "claude", Mode: "magi", Round: 1, Vote: "reject", Text: hostile},
			{Kind: transcript.KindVote, Speaker: "melchior", Display: "MELCHIOR", Model: "gpt-5", Mode: "magi", Round: 2, Vote: "approve", Text: `{"vote":"approve","reasoning":"still"}`},
			{Kind: transcript.KindVote, Speaker: "balthasar", Display: "BALTHASAR", Model: "claude", Mode: "magi", Round: 2, Vote: "approve", Text: `{"vote":"approve","reasoning":"fine"}`},
			{Kind: transcript.KindVerdict, Speaker: "system", Display: "MAGI", Mode: "magi", Round: 2, Vote: "APPROVED", Text: "APPROVED after round 2: 2 approve"},
		},
		headings: []string{"Ship on Friday?", "1. You", "2. MELCHIOR · gpt-5 — round 1", "3. BALTHASAR · claude — round 1",
			"4. MELCHIOR · gpt-5 — round 2", "5. BALTHASAR · claude — round 2", "Verdict — round 2: APPROVED"},
		holds: []string{"| Member | Round 1 | Round 2 |\n|---|---|---|\n| MELCHIOR | APPROVE | APPROVE |\n| BALTHASAR | REJECT | APPROVE |\n"},
	}
	legend := "Council ranking (Response A = gemini, Response B = chatgpt): Which queue?"
	council := outlineSession{
		info: debate.SessionInfo{ID: "a00000000003", Title: "Which queue?", Mode: "council", Created: t0},
		entries: []transcript.Entry{
			{Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: "council", Text: "Which queue?"},
			{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Model: "flash", Mode: "council", Round: 1, Text: "Kafka.\n\n# Why\n\n<iframe src=x>"},
			{Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Model: "gpt-5", Mode: "council", Round: 1, Text: "NATS."},
			{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Model: "flash", Mode: "council", Round: 2, Prompt: legend,
				Text: "Ranking, best first: 1. ChatGPT (Response B), 2. Gemini (Response A)\n\nB is simpler."},
			{Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Model: "gpt-5", Mode: "council", Round: 2, Prompt: legend,
				Text: "Ranking, best first: 1. ChatGPT (Response B), 2. Gemini (Response A)\n\nB."},
			{Kind: transcript.KindReply, Speaker: "chairman", Display: "Chairman", Model: "gpt-5", Mode: "council", Round: 3, Text: "NATS, then.\n\n## Decision"},
		},
		headings: []string{"Which queue?", "1. You", "2. Gemini · flash — stage 1, answers", "3. ChatGPT · gpt-5 — stage 1, answers",
			"4. Gemini · flash — stage 2, ranking", "5. ChatGPT · gpt-5 — stage 2, ranking", "6. Chairman · gpt-5 — stage 3, chairman"},
		holds: []string{"| Rank | Member | Borda | Mean rank | Rankings |\n|---|---|---|---|---|\n| 1 | ChatGPT | 1 | 1.00 | 1 |\n| 2 | Gemini | 0 | 2.00 | 1 |\n",
			"- Gemini ranked: ChatGPT > Gemini\n"},
	}
	mention := outlineSession{
		info: debate.SessionInfo{ID: "a00000000004", Title: "<img src=x onerror=alert(1)> # title", Mode: "mention", Created: t0},
		entries: []transcript.Entry{
			{Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: "mention", Text: "@all ### 2. Gemini"},
			{Kind: transcript.KindReply, Speaker: "gemini", Display: "<b>Gemini</b>", Model: "flash`x`", Mode: "mention", Text: hostile, Status: "partial", Error: "<script>cut</script>"},
			{Kind: transcript.KindNote, Speaker: "user", Display: "You", Mode: "mention", Text: "# my note\n<script>n</script>"},
			{Kind: transcript.KindError, Speaker: "claude", Display: "Claude", Mode: "mention", Error: "<img onerror=x>\n# boom"},
			{Kind: transcript.KindSummary, Speaker: "system", Display: "Summary", Mode: "mention", Covers: 2, Text: hostile},
		},
		headings: []string{"<img src=x onerror=alert(1)> # title", "1. You", "2. <b>Gemini</b> · flash`x`"},
	}
	out := []outlineSession{agent, magi, council, mention}
	for _, s := range out {
		for i := range s.entries {
			s.entries[i].Turn = i + 1
			s.entries[i].Started, s.entries[i].Finished = t0, t0
			if s.entries[i].Status == "" {
				s.entries[i].Status = transcript.StatusComplete
			}
		}
	}
	return out
}

// TestExportMarkdownOutline saves each session to a real SQLite file,
// exports it and reads the export as GitHub would: its headings are the
// session's turns, and no HTML or script link gets through.
func TestExportMarkdownOutline(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	for _, s := range outlineSessions() {
		rec := st.Record()
		rec.Sink(debate.SessionStarted{Session: s.info})
		for _, en := range s.entries {
			rec.Sink(debate.EntryAdded{Entry: en})
		}
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := st.Export(context.Background(), &b, s.info.ID, "md"); err != nil {
			t.Fatal(err)
		}
		md := b.Bytes()
		headings, unsafe := readExport(md)
		if !slices.Equal(headings, s.headings) {
			t.Errorf("%s: headings\n%q\nwant\n%q\nexport:\n%s", s.info.Mode, headings, s.headings, md)
		}
		for _, u := range unsafe {
			t.Errorf("%s: %s reached the export:\n%s", s.info.Mode, u, md)
		}
		for _, h := range s.holds {
			if !bytes.Contains(md, []byte(h)) {
				t.Errorf("%s: export lacks\n%s\nexport:\n%s", s.info.Mode, h, md)
			}
		}
		for _, o := range s.once {
			if n := bytes.Count(md, []byte(o)); n != 1 {
				t.Errorf("%s: %q appears %d times, want once:\n%s", s.info.Mode, o, n, md)
			}
		}
	}
}

// readExport parses md with GitHub's flavour and returns its headings'
// text and every unsafe node it holds.
func readExport(md []byte) (headings, unsafe []string) {
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(md))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			headings = append(headings, plainText(v, md))
		case *ast.HTMLBlock, *ast.RawHTML:
			unsafe = append(unsafe, fmt.Sprintf("raw HTML %s", n.Kind()))
		case *ast.Link:
			unsafe = append(unsafe, "link to "+string(v.Destination))
		case *ast.Image:
			unsafe = append(unsafe, "image from "+string(v.Destination))
		case *ast.AutoLink: // GFM links a bare web address; nothing else may be
			if url := string(v.URL(md)); !webAddress.MatchString(url) {
				unsafe = append(unsafe, "autolink "+url)
			}
		}
		return ast.WalkContinue, nil
	})
	return headings, unsafe
}

// plainText is what a reader sees of a heading: goldmark renders it,
// and the tags and entities of the HTML go.
func plainText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	if err := goldmark.New().Renderer().Render(&b, src, n); err != nil {
		return "render: " + err.Error()
	}
	return strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(b.String(), "")))
}

var webAddress = regexp.MustCompile(`^(?:https?://|mailto:)[^\s<>"']*$`)

var tagRE = regexp.MustCompile(`<[^>]*>`)

func FuzzModelMarkdown(f *testing.F) {
	for _, s := range []string{hostile, "# h", "a\n===", "<div>\n# x\n</div>", "```\n<b>", "> ```\n<script>", "- ```\n  x\n<i>", "    <b>\n# c", "[x](javascript:1)", "~~~\n<b>\n~~~~", "```a`b\n<script>x</script>\n```", "[x][y]\n\n[y]: https://e.x", "<https://e.x> www.e.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := append([]byte("# Title\n\n"), modelMarkdown(clean(s))...)
		doc = append(doc, "\n### end\n"...)
		headings, unsafe := readExport(doc)
		if len(headings) != 2 || headings[1] != "end" || len(unsafe) > 0 {
			t.Fatalf("model text %q gave headings %q and %q:\n%s", s, headings, unsafe, doc)
		}
	})
}
