// Package toolbox holds the native tools a member may call and runs them:
// the registry of a run's tools (Box), the policy over them (allow, deny,
// ask), the limits on calls, and the files tool over the workspace jail.
// A call never fails the turn: an unknown tool, malformed arguments, a
// refusal, an error, a panic or a timeout all become the tool's result,
// marked as an error, which goes back to the model. Tools that reach the
// network or other processes (fetch, MCP servers) are built outside the
// engine and handed in as Tool values.
package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers"
)

// Selection names: what `tools: [...]` and --tools accept.
const (
	Files     = "files"
	Fetch     = "fetch"
	WebSearch = "web_search"
	MCPPrefix = "mcp:"
)

// Limits.
const (
	DefaultMaxPerTurn = 8                // tool calls one turn may make (max_tool_calls)
	MaxResultBytes    = 64 << 10         // text of one result the model gets
	DefaultTimeout    = 30 * time.Second // one call, whatever the tool
	maxArgBytes       = 64 << 10         // a call's arguments as the model wrote them
)

// Source says where a result came from, for its evidence record.
type Source struct {
	Kind  string // evidence.KindURL, KindFile, KindMCP
	Ref   string // the URL, path[:line], mcp:server/tool
	Title string
}

// Output is what a tool returned.
type Output struct {
	Text   string
	Source Source
}

// Tool is one function a model may call.
type Tool interface {
	Spec() providers.ToolSpec
	// Run runs the call; args is the JSON object the model wrote (checked
	// to be one). An error is the tool's failure, told to the model.
	Run(ctx context.Context, args map[string]any) (Output, error)
}

// Rule is a per-tool policy.
type Rule string

const (
	Allow Rule = "allow"
	Deny  Rule = "deny"
	// Ask needs the host's approval (RunWith's Approver); a run that has no
	// host to ask refuses the call with a reason saying so.
	Ask Rule = "ask"
)

// Approver asks the host about a call whose rule is Ask: ok runs it;
// otherwise reason is the call's result ("" when nobody could be asked).
type Approver func(ctx context.Context, call providers.ToolCall) (ok bool, reason string)

// Result is one finished call.
type Result struct {
	Call    providers.ToolCall
	Text    string // what the model gets (before the evidence quote)
	Source  Source
	IsError bool
	Took    time.Duration
}

// Box is the tools one member may call in a run.
type Box struct {
	tools   []Tool
	rules   map[string]Rule
	Timeout time.Duration // one call (0: DefaultTimeout)
	// ServerTools are the searches the vendor runs itself (web_search).
	ServerTools []providers.ServerTool
}

// New makes a box of tools (the first of a name wins) under rules (a tool
// name, or a selection name like "fetch", to a Rule; unnamed: Allow).
func New(tools []Tool, rules map[string]Rule) *Box {
	b := &Box{rules: rules}
	for _, t := range tools {
		if b.find(t.Spec().Name) == nil {
			b.tools = append(b.tools, t)
		}
	}
	return b
}

func (b *Box) find(name string) Tool {
	if b == nil {
		return nil
	}
	for _, t := range b.tools {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}

func (b *Box) rule(name string) Rule {
	if r, ok := b.rules[name]; ok {
		return r
	}
	return Allow
}

// Specs are the tools offered to the model: all but the denied ones.
func (b *Box) Specs() []providers.ToolSpec {
	if b == nil {
		return nil
	}
	var specs []providers.ToolSpec
	for _, t := range b.tools {
		if s := t.Spec(); b.rule(s.Name) != Deny {
			specs = append(specs, s)
		}
	}
	return specs
}

// Len is the number of tools offered, the vendor's own included.
func (b *Box) Len() int {
	if b == nil {
		return 0
	}
	return len(b.Specs()) + len(b.ServerTools)
}

// Run runs one call to its end. It never returns an error and never panics:
// every failure is the result's text with IsError set.
func (b *Box) Run(ctx context.Context, call providers.ToolCall) Result {
	return b.RunWith(ctx, call, nil)
}

// RunWith is Run with approve asked about a call under Ask (nil: refused).
func (b *Box) RunWith(ctx context.Context, call providers.ToolCall, approve Approver) (res Result) {
	start := time.Now()
	res.Call = call
	defer func() {
		if r := recover(); r != nil {
			res.Text, res.IsError = fmt.Sprintf("error: the tool %s failed: %v", call.Name, r), true
		}
		res.Text = sanitize.Text(res.Text) // nothing a tool returned reaches a screen raw
		res.Took = time.Since(start)
	}()
	t := b.find(call.Name)
	if t == nil {
		return errResult(res, fmt.Sprintf("there is no tool %q; the tools are: %s", clip(call.Name, 64), strings.Join(b.names(), ", ")))
	}
	switch b.rule(call.Name) {
	case Deny:
		return errResult(res, fmt.Sprintf("refused: the tool %s is denied by tools.policy", call.Name))
	case Ask:
		ok, reason := false, ""
		if approve != nil {
			ok, reason = approve(ctx, call)
		}
		if !ok && reason == "" {
			reason = fmt.Sprintf("refused: the tool %s needs the host's approval (tools.policy ask), and this run has no host to ask (--checkpoint); go on without it", call.Name)
		}
		if !ok {
			return errResult(res, reason)
		}
	}
	args, err := Arguments(call.Arguments)
	if err != nil {
		return errResult(res, "malformed arguments: "+err.Error())
	}
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type ran struct {
		out Output
		err error
	}
	done := make(chan ran, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- ran{err: fmt.Errorf("the tool panicked: %v", r)}
			}
		}()
		out, err := t.Run(ctx, args)
		done <- ran{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return errResult(res, "error: "+r.err.Error())
		}
		res.Text, res.Source = Cap(r.out.Text, MaxResultBytes), r.out.Source
		return res
	case <-ctx.Done():
		// A tool that ignores its context is left behind, never waited for.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errResult(res, fmt.Sprintf("error: the tool %s timed out after %s", call.Name, timeout))
		}
		return errResult(res, "error: cancelled")
	}
}

func (b *Box) names() []string {
	var names []string
	for _, s := range b.Specs() {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return []string{"(none)"}
	}
	return names
}

func errResult(res Result, text string) Result {
	res.Text, res.IsError = text, true
	return res
}

// Arguments reads a call's arguments: a JSON object ("" or "null" is {}).
func Arguments(raw string) (map[string]any, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "null" {
		return map[string]any{}, nil
	}
	if len(raw) > maxArgBytes {
		return nil, fmt.Errorf("the arguments are %d bytes, over %d", len(raw), maxArgBytes)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if args == nil {
		return map[string]any{}, nil
	}
	return args, nil
}

// String reads a string argument (required: missing is an error).
func String(args map[string]any, name string, required bool) (string, error) {
	v, ok := args[name]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("the argument %q is missing", name)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("the argument %q must be a string", name)
	}
	return s, nil
}

// Cap cuts text to at most limit bytes at a rune boundary, saying so.
func Cap(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	note := fmt.Sprintf("\n[cut: the result was %d bytes; only the first %d are shown]", len(text), limit)
	cut := limit - len(note)
	for cut > 0 && cut < len(text) && !utf8Start(text[cut]) {
		cut--
	}
	return text[:max(cut, 0)] + note
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Names are the tool names of a selection entry as offered to a model
// (files: list_file and read_file; fetch: fetch_url).
func Names(selection string) []string {
	switch selection {
	case Files:
		return []string{ToolListFile, ToolReadFile}
	case Fetch:
		return []string{ToolFetchURL}
	}
	return nil
}

// ToolFetchURL is the fetch tool's name.
const ToolFetchURL = "fetch_url"

// ParseSelection reads a tools list (config or --tools): each item files,
// fetch, web_search or mcp:NAME, each once; "none" alone is the empty list.
func ParseSelection(items []string) ([]string, error) {
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(it)
		switch {
		case it == "":
			continue
		case it == "none" && len(items) == 1:
			return []string{}, nil
		case it == Files, it == Fetch, it == WebSearch:
		case strings.HasPrefix(it, MCPPrefix) && validName(strings.TrimPrefix(it, MCPPrefix)):
		default:
			return nil, fmt.Errorf("unknown tool %q (the tools are files, fetch, web_search and mcp:NAME; none turns them off)", clip(it, 40))
		}
		if !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out, nil
}

// validName is an MCP server's name: letters, digits, - and _, ≤ 32.
func validName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
