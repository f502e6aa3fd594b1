package tools

import (
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"
)

// Tool names, as the model writes them.
const (
	ToolList     = "list_file"
	ToolRead     = "read_file"
	ToolComplete = "complete"
)

// Names lists the tools in the order the prompt presents them.
var Names = []string{ToolList, ToolRead, ToolComplete}

// Call is one parsed tool call.
type Call struct {
	Tool      string // ToolList, ToolRead or ToolComplete
	Path      string // list_file, read_file
	Recursive bool   // list_file
	Summary   string // complete: the answer
}

// Parameters are the call's arguments in the export shape (strings by name).
func (c Call) Parameters() map[string]string {
	switch c.Tool {
	case ToolList:
		return map[string]string{"path": c.Path, "recursive": strconv.FormatBool(c.Recursive)}
	case ToolRead:
		return map[string]string{"path": c.Path}
	case ToolComplete:
		return map[string]string{"summary": c.Summary}
	}
	return map[string]string{}
}

// String is the call on one line, for logs and the console.
func (c Call) String() string {
	switch c.Tool {
	case ToolList:
		if c.Recursive {
			return "list_file " + c.Path + " (recursive)"
		}
		return "list_file " + c.Path
	case ToolRead:
		return "read_file " + c.Path
	}
	return c.Tool
}

// ParseError says why a reply holds no usable tool call. The loop sends it
// back to the model and asks for a retry.
type ParseError struct {
	Problem string
	NoCall  bool // no tool element at all (plain prose)
}

func (e *ParseError) Error() string { return e.Problem }

// IsNoCall reports whether err means the reply had no tool element at all.
func IsNoCall(err error) bool {
	var pe *ParseError
	return errors.As(err, &pe) && pe.NoCall
}

var (
	toolOpen = lazyregexp.New(`<(list_file|read_file|complete)(\s[^<>]*)?/?>`)
	// toolLike spots what a model trained on other agents' tools tends to
	// write instead (write_file, execute_command, a bare <path>), so the
	// retry message can say what was wrong.
	toolLike = lazyregexp.New(`<([A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*|path|bash|shell|exec|execute|run|write|edit|search|grep|cat|ls|view|glob|tool|tool_call|function_calls|invoke)(\s[^<>]*)?/?>`)
)

// ParseCall finds exactly one tool call in a model's reply. Prose and code
// fences around it are fine; no call, an unknown tool, two calls, a missing
// or empty <path> and a <recursive> that is not true or false are errors
// whose message tells the model what to fix.
func ParseCall(reply string) (Call, error) {
	loc := toolOpen.FindStringSubmatchIndex(reply)
	if loc == nil {
		return Call{}, noCall(reply)
	}
	name := reply[loc[2]:loc[3]]
	start, openEnd := loc[0], loc[1]
	var body string
	end := openEnd
	if strings.HasSuffix(reply[start:openEnd], "/>") {
		body = ""
	} else {
		closeRe := regexp.MustCompile(`</` + name + `\s*>`)
		c := closeRe.FindStringIndex(reply[openEnd:])
		if c == nil {
			return Call{}, bad("<%s> is not closed: end the call with </%s>", name, name)
		}
		body = reply[openEnd : openEnd+c[0]]
		end = openEnd + c[1]
	}
	if m := toolOpen.FindStringSubmatch(reply[:start] + "\n" + reply[end:]); m != nil {
		return Call{}, bad("the reply holds more than one tool call (<%s> and <%s>); send exactly one per reply and wait for its result", name, m[1])
	}
	switch name {
	case ToolComplete:
		return parseComplete(body)
	default:
		return parsePathCall(name, reply[start:end], body)
	}
}

func noCall(reply string) error {
	if m := toolLike.FindStringSubmatch(reply); m != nil {
		if m[1] == "path" {
			return bad("<path> must sit inside a tool element, e.g. <read_file><path>FILE</path></read_file>")
		}
		return bad("<%s> is not a tool here; the tools are <list_file>, <read_file> and <complete>", m[1])
	}
	return &ParseError{Problem: "no tool call found; every reply must hold exactly one of <list_file>, <read_file> or <complete>", NoCall: true}
}

func bad(format string, args ...any) error {
	return &ParseError{Problem: fmt.Sprintf(format, args...)}
}

// pathCall is the XML shape of list_file and read_file.
type pathCall struct {
	Path      []string `xml:"path"`
	Recursive []string `xml:"recursive"`
}

func parsePathCall(name, element, body string) (Call, error) {
	var pc pathCall
	if err := xml.Unmarshal([]byte(element), &pc); err != nil {
		// Not well-formed (often a bare & or < in a path): read the
		// children by their tags instead, entities decoded.
		pc = pathCall{Path: rawChildren(body, "path"), Recursive: rawChildren(body, "recursive")}
		if len(pc.Path) == 0 {
			return Call{}, bad("<%s> is not well-formed XML (%v); write it as %s", name, err, example(name))
		}
	} else if others := unknownChildren(element); len(others) > 0 {
		return Call{}, bad("<%s> has an unknown parameter <%s>; write it as %s", name, others[0], example(name))
	}
	switch {
	case len(pc.Path) == 0:
		return Call{}, bad("<%s> needs a <path>; write it as %s", name, example(name))
	case len(pc.Path) > 1:
		return Call{}, bad("<%s> takes one <path>; make one call per path", name)
	}
	c := Call{Tool: name, Path: strings.TrimSpace(pc.Path[0])}
	if c.Path == "" {
		return Call{}, bad("<path> is empty; give a path relative to the workspace root (\".\" is the root)")
	}
	if name == ToolRead {
		if len(pc.Recursive) > 0 {
			return Call{}, bad("<read_file> takes only <path>; <recursive> belongs to <list_file>")
		}
		return c, nil
	}
	if len(pc.Recursive) > 1 {
		return Call{}, bad("<list_file> takes one <recursive>")
	}
	if len(pc.Recursive) == 1 {
		v := strings.ToLower(strings.TrimSpace(pc.Recursive[0]))
		switch v {
		case "true", "yes", "1":
			c.Recursive = true
		case "false", "no", "0", "":
		default:
			return Call{}, bad("<recursive> must be true or false, not %q", pc.Recursive[0])
		}
	}
	return c, nil
}

var childTag = lazyregexp.New(`<([A-Za-z_][\w.-]*)[\s/>]`)

// unknownChildren names the elements of a path call other than path and recursive.
func unknownChildren(element string) []string {
	var d struct {
		Any []struct {
			XMLName xml.Name
		} `xml:",any"`
	}
	if xml.Unmarshal([]byte(element), &d) != nil {
		return nil
	}
	var out []string
	for _, a := range d.Any {
		if a.XMLName.Local != "path" && a.XMLName.Local != "recursive" {
			out = append(out, a.XMLName.Local)
		}
	}
	return out
}

func example(name string) string {
	if name == ToolList {
		return "<list_file><path>DIR</path><recursive>true|false</recursive></list_file>"
	}
	return "<read_file><path>FILE</path></read_file>"
}

// rawChildren returns the texts of <tag>…</tag> in body, entities decoded,
// for elements that are not well-formed XML.
func rawChildren(body, tag string) []string {
	re := regexp.MustCompile(`(?s)<` + tag + `\s*>(.*?)</` + tag + `\s*>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out = append(out, decodeText(m[1]))
	}
	return out
}

// decodeText decodes XML entities and unwraps a CDATA section.
func decodeText(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "<![CDATA[") && strings.HasSuffix(t, "]]>") {
		return t[len("<![CDATA[") : len(t)-len("]]>")]
	}
	return html.UnescapeString(s)
}

var (
	summaryOpen  = lazyregexp.New(`<summary\s*>`)
	summaryClose = lazyregexp.New(`</summary\s*>`)
)

// parseComplete reads <complete><summary>…</summary></complete>. The summary
// is Markdown that may hold "<" and "&" freely (Vec<T>, a && b), so it is
// taken verbatim between the first <summary> and the last </summary> with
// entities decoded, not parsed as XML. A complete without <summary> but
// with text is taken as that text.
func parseComplete(body string) (Call, error) {
	text := body
	if o := summaryOpen.FindStringIndex(body); o != nil {
		rest := body[o[1]:]
		closes := summaryClose.FindAllStringIndex(rest, -1)
		if closes == nil {
			return Call{}, bad("<summary> is not closed: end it with </summary></complete>")
		}
		text = rest[:closes[len(closes)-1][0]]
	} else if strings.TrimSpace(body) == "" || childTag.MatchString(body) {
		return Call{}, bad("<complete> needs a <summary>; write it as <complete><summary>ANSWER</summary></complete>")
	}
	summary := strings.TrimSpace(decodeText(text))
	if summary == "" {
		return Call{}, bad("<summary> is empty; put your answer to the question in it")
	}
	return Call{Tool: ToolComplete, Summary: summary}, nil
}
