package web

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/transcript"
)

func TestRenderMarkdown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"**bold** and `code`", "<strong>bold</strong> and <code>code</code>"},
		{"a <script>alert(1)</script> b", "a &lt;script&gt;alert(1)&lt;/script&gt; b"},
		{"<script>alert(1)</script>\n", `<pre class="raw-html">&lt;script&gt;alert(1)&lt;/script&gt;`},
		{"<img src=x onerror=alert(2)>", "&lt;img src=x onerror=alert(2)&gt;"},
		{"[x](javascript:alert(3))", "x"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>"},
		{"```go\nfunc main() {}\n```", "<pre><code class=\"language-go\">func main() {}"},
		{"see https://example.com", `href="https://example.com"`},
	} {
		got := string(RenderMarkdown(c.in))
		if !strings.Contains(got, c.want) {
			t.Errorf("RenderMarkdown(%q) = %q, want it to contain %q", c.in, got, c.want)
		}
		if p := inertProblem(got); p != "" {
			t.Errorf("RenderMarkdown(%q): %s", c.in, p)
		}
	}
}

// FuzzRenderMarkdown: whatever a model writes, the HTML has no script
// element, no event handler, no style attribute and no javascript: URL.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{
		hostile, "**b**", "<ScRiPt>x</ScRiPt>", "<svg><script>alert(1)</script></svg>", "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
		"[x](  javascript:alert(1) )", "![i](x\" onerror=\"alert(1))", "<iframe srcdoc=\"<script>alert(1)</script>\">",
		"<div style=\"background:url(javascript:alert(1))\">", "```\n<script>\n```", "<!-- <script> -->", "<math><mi xlink:href=\"javascript:alert(1)\">",
		"| <b onclick=x> | b |\n|---|---|", "- [ ] <input onfocus=alert(1) autofocus>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out := string(RenderMarkdown(src))
		if p := inertProblem(out); p != "" {
			t.Fatalf("RenderMarkdown(%q): %s\n%s", src, p, out)
		}
		if strings.Contains(strings.ToLower(out), "<script") {
			t.Fatalf("RenderMarkdown(%q) has a script tag: %s", src, out)
		}
	})
}

// FuzzEntryFragment renders one history entry of any kind and status, with
// any text, error and tool call (votes parse their text as JSON), as the
// session page and /s/{id}/entry/{turn} do: the HTML stays inert.
func FuzzEntryFragment(f *testing.F) {
	f.Add("reply", "complete", hostile, hostile, hostile)
	f.Add("vote", "complete", `{"vote":"approve","reasoning":"<script>x</script>","summary":"<img src=x onerror=y>"}`, "", "")
	f.Add("vote", "partial", `{"vote":"<b onclick=x>"}`, "", "")
	f.Add("tool_call", "complete", "list_file", "", `" onmouseover="x`)
	f.Add("moderator", "streaming", "**x** <script>", "", "")
	f.Fuzz(func(t *testing.T, kind, status, text, errText, param string) {
		e := transcript.Entry{Turn: 1, Kind: transcript.Kind(kind), Status: transcript.Status(status), Speaker: param, Display: errText,
			Model: param, Provider: text, Round: 2, Vote: param, Text: text, Error: errText,
			ToolCalls: []transcript.ToolCall{{Tool: param, Parameters: map[string]string{param: text}, Error: errText}}}
		var buf strings.Builder
		if err := pages().ExecuteTemplate(&buf, "entry", viewEntry(e)); err != nil {
			t.Fatal(err)
		}
		if p := inertProblem(buf.String()); p != "" {
			t.Fatalf("%s\n%s", p, buf.String())
		}
	})
}
