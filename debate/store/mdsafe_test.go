package store

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// hostileSession is an agent session whose model answers with HTML, links,
// forged headings and an open fence, and reads a README full of headings
// and backticks.
func hostileSession() (debate.SessionInfo, []transcript.Entry) {
	t0 := time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC)
	readme := "# Project\n\n## Install\n\n```sh\ngo run .\n```\n\n<img src=x onerror=alert(1)>\nREADME-LINE-ONCE\n"
	info := debate.SessionInfo{ID: "0123456789ab", Title: "agent · <b>what</b> is this?", Mode: "agent", Created: t0}
	entries := []transcript.Entry{
		{Kind: transcript.KindUser, Speaker: "user", Display: "You", Text: "what is this? <script>alert(1)</script>"},
		{Kind: transcript.KindReply, Speaker: "claude", Display: "Claude", Model: "claude-sonnet-4-6", Text: "<list_file><path>.</path></list_file>"},
		{Kind: transcript.KindToolCall, Speaker: "claude", Display: "Claude", Model: "claude-sonnet-4-6",
			ToolCalls: []transcript.ToolCall{{Tool: "read_file", Parameters: map[string]string{"path": "README.md"}, Result: readme}}},
		{Kind: transcript.KindToolResult, Speaker: "claude", Display: "Claude", Text: readme},
		{Kind: transcript.KindToolResult, Speaker: "claude", Display: "Claude", Text: "Your reply had no tool call. <complete>", Error: "no tool call"},
		{Kind: transcript.KindReply, Speaker: "claude", Display: "Claude", Model: "claude-sonnet-4-6", Text: strings.Join([]string{
			"It is a CLI.", "", "### 4. You", "I am the host now.", "", "Forged", "===", "",
			"<script>alert(1)</script>", "[click](javascript:alert(1)) and <javascript:alert(1)>", "",
			"[ref]: javascript:alert(1)", "[ref]", "", "```go", "func main() {}",
		}, "\n")},
		{Kind: transcript.KindNote, Speaker: "user", Display: "You", Text: "# not a heading either"},
	}
	for i := range entries {
		entries[i].Turn = i + 1
		entries[i].Status = transcript.StatusComplete
		entries[i].Started = t0
	}
	return info, entries
}

// Every export parses as Markdown whose headings are exactly the title and
// the session's turns, with no HTML and no link anywhere, and each tool
// result appears once, fenced.
func TestMarkdownExportOutlineIsTheTurns(t *testing.T) {
	t.Parallel()
	for name, session := range map[string]func() (debate.SessionInfo, []transcript.Entry){"hostile": hostileSession, "golden": goldenSession} {
		t.Run(name, func(t *testing.T) {
			info, entries := session()
			var buf bytes.Buffer
			if err := WriteMarkdown(&buf, info, entries); err != nil {
				t.Fatal(err)
			}
			src := buf.Bytes()
			doc := goldmark.New().Parser().Parse(text.NewReader(src))
			var outline []string
			err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if !entering {
					return ast.WalkContinue, nil
				}
				switch n.Kind() {
				case ast.KindHTMLBlock, ast.KindRawHTML:
					t.Errorf("raw HTML in the export, in %q", nodeText(n.Parent(), src))
				case ast.KindLink, ast.KindAutoLink, ast.KindImage:
					t.Errorf("a link in the export: %q", nodeText(n, src))
				case ast.KindHeading:
					outline = append(outline, fmt.Sprintf("h%d %s", n.(*ast.Heading).Level, nodeText(n, src)))
				}
				return ast.WalkContinue, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"h1 " + strings.Fields(string(src))[1]}
			for _, en := range entries {
				switch en.Kind {
				case transcript.KindNote, transcript.KindError, transcript.KindSummary:
				case transcript.KindVerdict:
					want = append(want, fmt.Sprintf("h2 Verdict — round %d: %s", en.Round, en.Vote))
				default:
					want = append(want, fmt.Sprintf("h3 %d.", en.Turn))
				}
			}
			if len(outline) != len(want) {
				t.Fatalf("outline %q\nwant one heading per turn %q\n%s", outline, want, src)
			}
			for i := 1; i < len(want); i++ {
				if !strings.HasPrefix(outline[i], want[i]) {
					t.Errorf("heading %d is %q, want %q…", i, outline[i], want[i])
				}
			}
			if name == "hostile" && strings.Count(string(src), "README-LINE-ONCE") != 1 {
				t.Errorf("the tool result is not there exactly once:\n%s", src)
			}
		})
	}
}

// nodeText is the plain text under a node.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
