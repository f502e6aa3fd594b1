// Package mcp is Parley as an MCP server: parley mcp over stdio and /mcp
// under parley serve (streamable HTTP). It is one more consumer of the
// engine: each tool call builds an engine, records it in the session
// database like every command, and reads only its events — for the result,
// for the readable text (the headless printer) and for live progress.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/store"
)

// Options configure a Server.
type Options struct {
	// Config is the configuration every tool call starts from (validated).
	Config *config.Config
	// Agents binds a configuration's agents to their providers (the demo
	// agents with --demo).
	Agents func(*config.Config) ([]*debate.Agent, error)
	// Store keeps every session a tool call runs.
	Store *store.Store
	// MaxCost is every tool call's cost cap in USD, and the ceiling of the
	// call's max_cost (DefaultMaxCost when 0).
	MaxCost float64
	// Version is reported to clients as the server's version.
	Version string
	// Log receives the server's own messages (nothing when nil).
	Log io.Writer
	// Getenv is the environment the MCP tool servers of serve.tools
	// inherit from (nil: none), the command factory's.
	Getenv func(string) string
}

// Server is Parley's MCP server: its tools and resources, shared by every
// client session (stdio has one; HTTP one per Mcp-Session-Id).
type Server struct {
	opts Options
	srv  *mcp.Server

	mu sync.Mutex
	// debates is each client session's active alternating debate.
	debates map[*mcp.ServerSession]string
	// busy holds the sessions a tool call is running, so two calls never
	// write one session at once.
	busy map[string]bool
	// listed are the sessions offered as resources.
	listed map[string]bool
	// runs are the tool calls running, until their session is saved.
	runs sync.WaitGroup
	// budget is the stdio connection's budget across its tool calls (the
	// configuration's budget_usd, or --max-cost): nil under serve.
	budget *spend.Meter
	// limits are serve's spend windows (SetLimits): nil over stdio.
	limits *store.SpendLimits
	// schemas are the tools' input schemas, by tool name.
	schemas map[string]*jsonschema.Schema
	// subs are the session resources clients subscribed to.
	subs subscriptions
	// life ends when the server closes: it cancels every run.
	life context.Context
	stop context.CancelFunc
}

// New builds the server with every tool and the saved sessions as resources.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Config == nil || opts.Agents == nil || opts.Store == nil {
		return nil, errors.New("mcp: Config, Agents and Store are required")
	}
	s := &Server{opts: opts, debates: map[*mcp.ServerSession]string{}, busy: map[string]bool{}, listed: map[string]bool{}}
	s.life, s.stop = context.WithCancel(context.Background())
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "parley", Title: "Parley", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true}},
		// A subscribed session's resource is updated when any process adds turns to it.
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
	})
	s.addTools()
	if err := s.addResources(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

const instructions = `Parley is a round table of language models. ask puts a question to named agents (or all);
magi runs a three-member council that votes over three rounds; council has members answer, rank
each other anonymously, and a chairman write the final answer; debate_start/debate_step run an
alternating two-agent debate. Every run is saved: sessions_list, session_get, and each session as
the resource parley://sessions/ID (Markdown; subscribe to it to hear when any process adds turns).
Long runs report progress when given a progress token.`

// RunStdio serves one client over in and out (the command's stdin and
// stdout) until it disconnects or ctx ends. A client gone (stdin closed) cancels what it left running (nobody
// would read the answers it pays for); those calls are saved, marked
// cancelled, before RunStdio returns.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	if b := s.opts.Config.BudgetUSD; b > 0 {
		// One client is one session: budget_usd bounds what all its tool
		// calls spend together, each call still under its own cap.
		s.budget = spend.NewMeter(b, 0)
	}
	err := s.srv.Run(ctx, &LineTransport{In: in, Out: out})
	s.Close()
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// Close cancels the tool calls still running and waits, at most
// drainTimeout, for them to save their sessions: the store must outlive
// them.
func (s *Server) Close() {
	s.stop()
	done := make(chan struct{})
	go func() {
		s.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(drainTimeout):
		s.logf("tool calls still running after %s; their last events may be lost", drainTimeout)
	}
}

// httpIdle ends an HTTP client's session it has not used for this long:
// clients that never say goodbye do not pile up.
const httpIdle = 30 * time.Minute

// Handler is the streamable HTTP endpoint. parley serve mounts it at /mcp
// behind its own Host, origin and token checks, which also admit the names
// of serve.hosts: the SDK's narrower localhost-only Host check would refuse
// those behind a local proxy, so it is left to serve.
// Every body goes through checkFrame first, as every stdio line does.
func (s *Server) Handler() http.Handler {
	return escapedOut(checkBodies(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{DisableLocalhostProtection: true, SessionTimeout: httpIdle, EventStore: newEventStore()})))
}

// Connect serves one client over t (tests use in-memory transports).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.srv.Connect(ctx, t, nil)
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "parley mcp: "+format+"\n", args...)
	}
}

// claim marks session id as running a tool call; release ends the claim.
func (s *Server) claim(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[id] {
		return fmt.Errorf("session %s is busy: another call is running it", id)
	}
	s.busy[id] = true
	return nil
}

func (s *Server) release(id string) {
	s.mu.Lock()
	delete(s.busy, id)
	s.mu.Unlock()
}
