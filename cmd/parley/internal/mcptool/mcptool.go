// Package mcptool serves the tools of the MCP servers a user declares
// (mcp_servers) to members as mcp__NAME__TOOL, through the official Go
// SDK's client. A server is started (or dialled) only when a run first
// offers its tools; a stdio server gets a clean environment (PATH, HOME,
// LANG, TMPDIR and its own env: no provider key); a server that fails to
// start, errs or hangs is a tool error, never a stuck debate.
package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/providers"
)

// Limits.
const (
	ConnectTimeout = 20 * time.Second // starting a server and listing its tools
	maxTools       = 64               // tools taken from one server
	maxNameBytes   = 64               // a tool name as vendors accept it
)

// Pool holds a run's connections, one per server, opened on first use.
type Pool struct {
	// Timeout bounds starting a server and listing its tools (0: ConnectTimeout).
	Timeout time.Duration
	specs   map[string]config.MCPServerSpec
	lookup  func(string) (string, bool) // the environment a server inherits from
	mu      sync.Mutex
	conns   map[string]*conn
}

type conn struct {
	once    sync.Once
	session *mcp.ClientSession
	tools   []toolbox.Tool
	err     error
}

// NewPool makes a pool over the configured servers; lookup reads the variables a stdio server inherits (PATH, HOME, LANG,
// TMPDIR), from the environment the command factory hands down.
func NewPool(specs map[string]config.MCPServerSpec, lookup func(string) (string, bool)) *Pool {
	return &Pool{specs: specs, conns: map[string]*conn{}, lookup: lookup}
}

// Tools are server name's tools, connecting on the first call. The error
// says why the server could not be used; it is kept, so a broken server
// is tried once per run.
func (p *Pool) Tools(name string) ([]toolbox.Tool, error) {
	p.mu.Lock()
	c := p.conns[name]
	if c == nil {
		c = &conn{}
		p.conns[name] = c
	}
	spec, ok := p.specs[name]
	p.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("mcp:%s: no such server in mcp_servers", name)
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = ConnectTimeout
	}
	c.once.Do(func() { c.session, c.tools, c.err = connect(name, spec, timeout, p.lookup) })
	return c.tools, c.err
}

// Close ends every session (a stdio server's process with it).
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, c := range p.conns {
		if c.session != nil {
			errs = append(errs, c.session.Close())
		}
	}
	p.conns = map[string]*conn{}
	return errors.Join(errs...)
}

// cleanEnv is what a stdio server's process sees: none of Parley's keys.
func cleanEnv(lookup func(string) (string, bool), extra map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
		if lookup == nil {
			break
		}
		if v, ok := lookup(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

func connect(name string, spec config.MCPServerSpec, timeout time.Duration, lookup func(string) (string, bool)) (*mcp.ClientSession, []toolbox.Tool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var transport mcp.Transport
	if spec.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: spec.URL, MaxRetries: -1}
	} else {
		cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
		cmd.Env = cleanEnv(lookup, spec.Env)
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "parley", Version: "1"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp:%s could not be started: %w", name, err)
	}
	var tools []toolbox.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			_ = session.Close()
			return nil, nil, fmt.Errorf("mcp:%s: listing its tools: %w", name, err)
		}
		if len(tools) >= maxTools {
			break
		}
		tools = append(tools, &tool{session: session, server: name, remote: t.Name, spec: specOf(name, t)})
	}
	return session, tools, nil
}

// ToolName is how server's tool is offered: mcp__server__tool, with any
// character vendors refuse made '_', at most 64 bytes.
func ToolName(server, name string) string {
	var b strings.Builder
	b.WriteString("mcp__" + server + "__")
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxNameBytes {
		s = s[:maxNameBytes]
	}
	return s
}

func specOf(server string, t *mcp.Tool) providers.ToolSpec {
	params := map[string]any{"type": "object", "properties": map[string]any{}}
	if raw, err := json.Marshal(t.InputSchema); err == nil {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil && m != nil {
			params = m
		}
	}
	desc := t.Description
	if len(desc) > 1024 {
		desc = desc[:1024]
	}
	return providers.ToolSpec{Name: ToolName(server, t.Name), Description: desc, Parameters: params}
}

type tool struct {
	session        *mcp.ClientSession
	server, remote string
	spec           providers.ToolSpec
}

func (t *tool) Spec() providers.ToolSpec { return t.spec }

// Run calls the tool; its text content is the result (other content is
// named, not inlined), an error result is the tool's error.
func (t *tool) Run(ctx context.Context, args map[string]any) (toolbox.Output, error) {
	res, err := t.session.CallTool(ctx, &mcp.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		return toolbox.Output{}, fmt.Errorf("mcp:%s/%s: %w", t.server, t.remote, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > toolbox.MaxResultBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[an image, %s, %d bytes]", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio, %s, %d bytes]", c.MIMEType, len(c.Data))
		default:
			fmt.Fprintf(&b, "[%T content]", c)
		}
	}
	if res.IsError {
		return toolbox.Output{}, errors.New(b.String())
	}
	return toolbox.Output{Text: b.String(), Source: toolbox.Source{Kind: evidence.KindMCP, Ref: "mcp:" + t.server + "/" + t.remote}}, nil
}
