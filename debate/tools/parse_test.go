package tools

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCallAccepts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reply string
		want        Call
	}{
		{"bare list", `<list_file><path>.</path><recursive>true</recursive></list_file>`, Call{Tool: ToolList, Path: ".", Recursive: true}},
		{"prose and newlines", "I will look around first.\n\n<list_file>\n  <path> debate </path>\n  <recursive>False</recursive>\n</list_file>\n", Call{Tool: ToolList, Path: "debate"}},
		{"no recursive", `<list_file><path>cmd</path></list_file>`, Call{Tool: ToolList, Path: "cmd"}},
		{"code fence", "Reading it now:\n```xml\n<read_file>\n<path>debate/engine.go</path>\n</read_file>\n```", Call{Tool: ToolRead, Path: "debate/engine.go"}},
		{"entities", `<read_file><path>a&amp;b &lt;x&gt;.go</path></read_file>`, Call{Tool: ToolRead, Path: "a&b <x>.go"}},
		{"bare ampersand", `<read_file><path>a&b.go</path></read_file>`, Call{Tool: ToolRead, Path: "a&b.go"}},
		{"cdata", `<read_file><path><![CDATA[we<ird>.go]]></path></read_file>`, Call{Tool: ToolRead, Path: "we<ird>.go"}},
		{"complete", "Done.\n<complete><summary>It is a **CLI**.</summary></complete>", Call{Tool: ToolComplete, Summary: "It is a **CLI**."}},
		{"complete with markdown angle brackets", "<complete>\n<summary>\nUse `Vec<T>` when a && b; see <read_file> docs.\n</summary>\n</complete>", Call{Tool: ToolComplete, Summary: "Use `Vec<T>` when a && b; see <read_file> docs."}},
		{"complete entities", `<complete><summary>x &lt; y &amp; z</summary></complete>`, Call{Tool: ToolComplete, Summary: "x < y & z"}},
		{"complete without summary tag", `<complete>The answer is 42.</complete>`, Call{Tool: ToolComplete, Summary: "The answer is 42."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseCall(c.reply)
			if err != nil {
				t.Fatalf("ParseCall: %v", err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParseCallRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reply, want string
		noCall            bool
	}{
		{"prose only", "I think the answer is simple.", "no tool call found", true},
		{"empty", "", "no tool call found", true},
		{"unknown tool", "<write_file><path>a.go</path><content>x</content></write_file>", "<write_file> is not a tool here", false},
		{"execute", "<execute_command><command>rm -rf /</command></execute_command>", "<execute_command> is not a tool here", false},
		{"bare path", "<path>main.go</path>", "<path> must sit inside a tool element", false},
		{"two calls", "<list_file><path>.</path></list_file>\n<read_file><path>a.go</path></read_file>", "more than one tool call (<list_file> and <read_file>)", false},
		{"same call twice", "<read_file><path>a</path></read_file><read_file><path>b</path></read_file>", "more than one tool call", false},
		{"not closed", "<read_file><path>a.go</path>", "<read_file> is not closed", false},
		{"missing path", "<read_file></read_file>", "<read_file> needs a <path>", false},
		{"self closing", "<list_file/>", "<list_file> needs a <path>", false},
		{"empty path", "<read_file><path>  </path></read_file>", "<path> is empty", false},
		{"two paths", "<read_file><path>a</path><path>b</path></read_file>", "takes one <path>", false},
		{"bad recursive", "<list_file><path>.</path><recursive>maybe</recursive></list_file>", `<recursive> must be true or false, not "maybe"`, false},
		{"unknown parameter", "<read_file><path>a.go</path><lines>1-20</lines></read_file>", "unknown parameter <lines>", false},
		{"recursive on read", "<read_file><path>a.go</path><recursive>true</recursive></read_file>", "<recursive> belongs to <list_file>", false},
		{"malformed", "<read_file><path>a.go</pat></read_file>", "not well-formed XML", false},
		{"empty summary", "<complete><summary> </summary></complete>", "<summary> is empty", false},
		{"summary not closed", "<complete><summary>half</complete>", "<summary> is not closed", false},
		{"complete with other child", "<complete><answer>x</answer></complete>", "<complete> needs a <summary>", false},
		{"empty complete", "<complete></complete>", "<complete> needs a <summary>", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseCall(c.reply)
			if err == nil {
				t.Fatalf("ParseCall accepted it: %+v", got)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
			if IsNoCall(err) != c.noCall {
				t.Fatalf("IsNoCall = %v, want %v", IsNoCall(err), c.noCall)
			}
			if msg := RetryMessage(err); !strings.Contains(msg, c.want) || !strings.Contains(msg, "Reply again") {
				t.Fatalf("retry message %q", msg)
			}
		})
	}
}

func TestCallParameters(t *testing.T) {
	t.Parallel()
	c := Call{Tool: ToolList, Path: "x", Recursive: true}
	if p := c.Parameters(); p["path"] != "x" || p["recursive"] != "true" || len(p) != 2 {
		t.Fatalf("list params %v", p)
	}
	if p := (Call{Tool: ToolRead, Path: "y"}).Parameters(); p["path"] != "y" || len(p) != 1 {
		t.Fatalf("read params %v", p)
	}
	if s := c.String(); s != "list_file x (recursive)" {
		t.Fatalf("String = %q", s)
	}
}

// FuzzParseCall: no input crashes the parser; an accepted call is one of
// the three tools with its required parameters; a rejected one says why;
// and a path written with proper escaping comes back unchanged.
func FuzzParseCall(f *testing.F) {
	for _, s := range []string{
		"<list_file><path>.</path><recursive>true</recursive></list_file>",
		"prose\n```xml\n<read_file><path>a&amp;b.go</path></read_file>\n```",
		"<complete><summary>Vec<T> & more</summary></complete>",
		"<read_file><path>a</path></read_file><list_file><path>b</path></list_file>",
		"<list_file><path>.</path><recursive>maybe</recursive></list_file>",
		"<write_file><path>x</path></write_file>",
		"<complete><summary>",
		"<read_file><path><![CDATA[x]]></path></read_file>",
		"<list_file/>",
		"",
	} {
		f.Add(s, "dir/file.go")
	}
	f.Fuzz(func(t *testing.T, reply, path string) {
		c, err := ParseCall(reply)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
		} else {
			switch c.Tool {
			case ToolList, ToolRead:
				if strings.TrimSpace(c.Path) == "" || c.Path != strings.TrimSpace(c.Path) {
					t.Fatalf("accepted path %q", c.Path)
				}
			case ToolComplete:
				if strings.TrimSpace(c.Summary) == "" {
					t.Fatal("accepted an empty summary")
				}
			default:
				t.Fatalf("accepted unknown tool %q", c.Tool)
			}
		}
		// Round trip: a well-escaped path inside prose parses back.
		p := strings.TrimSpace(path)
		if p == "" || !utf8.ValidString(p) || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0xFFFD }) {
			return
		}
		var esc strings.Builder
		if xml.EscapeText(&esc, []byte(p)) != nil {
			return
		}
		in := "Let me look.\n<read_file><path>" + esc.String() + "</path></read_file>\nThanks."
		got, err := ParseCall(in)
		if err != nil || got.Tool != ToolRead || got.Path != p {
			t.Fatalf("round trip of %q: %+v, %v", p, got, err)
		}
	})
}
