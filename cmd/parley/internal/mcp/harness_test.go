package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// parleyBin is the real binary for the stdio tests, built once for the
// whole `go test` run (see testbin) and only when a test needs it.
func parleyBin(t testing.TB) string {
	t.Helper()
	return testbin.Parley(t)
}

// wire records every JSON-RPC message a client read or wrote, in order.
type wire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// reads are the messages the client read, in arrival order.
func (w *wire) reads() []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(w.buf.String(), "\n") {
		if body, ok := strings.CutPrefix(line, "read: "); ok {
			var m map[string]any
			if json.Unmarshal([]byte(body), &m) == nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// progressOnWire is the messages of the progress notifications the client
// read, in order (its handler may run after the result is returned).
func (w *wire) progressOnWire(token any) []string {
	var out []string
	for _, m := range w.reads() {
		if m["method"] == "notifications/progress" {
			params, _ := m["params"].(map[string]any)
			if params["progressToken"] == token {
				msg, _ := params["message"].(string)
				out = append(out, msg)
			}
		}
	}
	return out
}

// client is a connected MCP client, its wire log and its progress notes.
type client struct {
	session *mcp.ClientSession
	wire    *wire
	mu      sync.Mutex
	notes   []*mcp.ProgressNotificationParams
	// onProgress, when set, sees each progress notification.
	onProgress func(*mcp.ProgressNotificationParams)
}

func (c *client) progress() []*mcp.ProgressNotificationParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), c.notes...)
}

func connect(t testing.TB, transport mcp.Transport) *client {
	t.Helper()
	c := &client{wire: &wire{}}
	sdk := mcp.NewClient(&mcp.Implementation{Name: "parley-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.notes = append(c.notes, req.Params)
			f := c.onProgress
			c.mu.Unlock()
			if f != nil {
				f(req.Params)
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := sdk.Connect(ctx, &mcp.LoggingTransport{Transport: transport, Writer: c.wire}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	c.session = session
	t.Cleanup(func() { _ = session.Close() })
	return c
}

// stdioClient starts `parley [args] mcp` as a process with env and connects.
func stdioClient(t testing.TB, db string, env []string, args ...string) *client {
	t.Helper()
	cmd := exec.Command(parleyBin(t), append(append([]string{"--db", db}, args...), "mcp")...)
	cmd.Env = append(cleanEnv(t), env...)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("parley mcp stderr:\n%s", stderr.String())
		}
	})
	return connect(t, &mcp.CommandTransport{Command: cmd})
}

// mcpProcess is `parley [args] mcp` (the built binary) driven through its
// pipes: its stdin, its stdout and its exit once it ends; it is killed at
// the test's end if still running.
type mcpProcess struct {
	stdin  io.WriteCloser
	stdout io.Reader
	exited chan error
	cmd    *exec.Cmd
}

func startMCP(t *testing.T, env []string, args ...string) *mcpProcess {
	t.Helper()
	cmd := exec.Command(parleyBin(t), append(args, "mcp")...)
	cmd.Env = append(cleanEnv(t), env...)
	cmd.Dir = t.TempDir()
	p := &mcpProcess{cmd: cmd, exited: make(chan error, 1)}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

// send writes each line to the process's stdin.
func (p *mcpProcess) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// leave closes stdin (the client is gone) and waits for the process to end.
func (p *mcpProcess) leave(t *testing.T) {
	t.Helper()
	if err := p.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, p.stdout) }()
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("parley mcp: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("parley mcp still running 30s after its client left")
	}
}

// cleanEnv is the process environment without keys, endpoints or Parley
// settings of the machine, so nothing real is reached.
func cleanEnv(t testing.TB) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_BASE_URL") || strings.HasPrefix(name, "PARLEY_") ||
			name == "XDG_CONFIG_HOME" || name == "XDG_DATA_HOME" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
}

// httpServer is parley serve's handler with the MCP server at /mcp.
func httpServer(t *testing.T, db string, agents func(*config.Config) ([]*debate.Agent, error), offline bool) (*httptest.Server, *store.Store) {
	return httpServerWithToken(t, db, agents, offline, "")
}

// httpServerWithToken is httpServer with PARLEY_SERVE_TOKEN set to token.
func httpServerWithToken(t *testing.T, db string, agents func(*config.Config) ([]*debate.Agent, error), offline bool, token string,
	adjust ...func(*parleymcp.Options)) (*httptest.Server, *store.Store) {
	t.Helper()
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.Config
	cfg.Offline = offline
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := parleymcp.Options{Config: cfg, Agents: agents, Store: st, Version: "test"}
	for _, f := range adjust {
		f(&opts)
	}
	m, err := parleymcp.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Config: cfg, Agents: agents, Store: st, MCP: m.Handler(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
		_ = st.Close()
	})
	return ts, st
}

func httpClient(t *testing.T, ts *httptest.Server) *client {
	return connect(t, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1})
}

// demoPace is the demo agents' pace where what a test checks comes once
// the answers are in: fast, still word by word (users see demo.Pace).
const demoPace = 200 * time.Microsecond

// fastDemo is the environment entry that makes the real binary's demo
// agents stream at demoPace (PARLEY_DEMO_PACE). The tools walk and the
// inspector set it: at the pace users see, the stdio walk spent ~14 s of
// the package's wall time watching words arrive. Tests that act
// mid-answer (progress, a client gone, a cancel) keep demo.Pace.
var fastDemo = "PARLEY_DEMO_PACE=" + demoPace.String()

// demoAgents are --demo's agents, in-process, at demoPace.
func demoAgents(cfg *config.Config) ([]*debate.Agent, error) {
	return cli.BuildAgents(cfg, true, demoPace, nil)
}

// fakeVendors points the three vendors at fakes that answer each kind of
// prompt in its shape (a vote, a ranking, prose); env is for a process.
// override, when given, answers the requests it accepts first.
func fakeVendors(t *testing.T, override ...func(providertest.Request) (providertest.Reply, bool)) (env []string, servers []*providertest.Server) {
	t.Helper()
	use := providers.Usage{InputTokens: 120, OutputTokens: 30}
	h := func(r providertest.Request) providertest.Reply {
		for _, o := range override {
			if reply, ok := o(r); ok {
				return reply
			}
		}
		switch {
		case strings.Contains(r.System, "impartial judge"):
			return providertest.Reply{Text: `{"evaluation":"both fine","ranking":["Response A","Response B"]}`, Usage: use}
		case strings.Contains(r.System, `"vote"`) || strings.Contains(r.System, "approve"):
			return providertest.Reply{Text: `{"vote":"approve","reasoning":"The fake weighed it and agrees. It is cheap.","summary":"fake approves"}`, Usage: use}
		}
		return providertest.Reply{Text: "FAKE-ANSWER to " + r.Model, Usage: use}
	}
	oa, an, ge := providertest.OpenAI(t, h), providertest.Anthropic(t, h), providertest.Gemini(t, h)
	env = []string{"OPENAI_API_KEY=k1", "ANTHROPIC_API_KEY=k2", "GEMINI_API_KEY=k3",
		"OPENAI_BASE_URL=" + oa.URL, "ANTHROPIC_BASE_URL=" + an.URL, "GOOGLE_GEMINI_BASE_URL=" + ge.URL}
	return env, []*providertest.Server{oa, an, ge}
}

// fakeAgents binds the agents to the fake vendors of env in this process.
func fakeAgents(env []string) func(*config.Config) ([]*debate.Agent, error) {
	return serve.SharedProviders(func(name string, spec providers.Spec) (providers.Provider, error) {
		return open.Open(name, spec, envLookup(env))
	})
}

// envLookup reads NAME=value pairs as os.Getenv reads the environment.
func envLookup(env []string) func(string) string {
	return func(k string) string {
		for _, kv := range env {
			if key, v, _ := strings.Cut(kv, "="); key == k {
				return v
			}
		}
		return ""
	}
}

// call runs a tool and decodes its structured content into out.
func (c *client) call(t testing.TB, ctx context.Context, name string, args map[string]any, out any, progressToken any) *mcp.CallToolResult {
	t.Helper()
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if progressToken != nil {
		params.SetProgressToken(progressToken)
	}
	res, err := c.session.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, textOf(res))
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
