package mcptool_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/mcptool"
	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

const servers = "testdata/servers"

// secretKey is in this test process's environment from TestMain on, as a
// user's key is in parley's: a server's process must never see it. Set
// once for the package rather than with t.Setenv, which keeps a test
// serial (node's start-up is most of each test's time; the package's wall
// time was the tests' sum).
const secretKey = "sk-test-parley-secret-key"

func TestMain(m *testing.M) {
	if err := os.Setenv("OPENAI_API_KEY", secretKey); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// server is the command running one of the npm servers installed from
// testdata/servers' package-lock.
func server(t *testing.T, pkg string, args ...string) []string {
	t.Helper()
	node := testbin.NodeClient(t, servers, pkg)
	script, err := filepath.Abs(filepath.Join(servers, "node_modules", pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{node, script}, args...)
}

func call(t *testing.T, box *toolbox.Box, name, args string) toolbox.Result {
	t.Helper()
	return box.Run(context.Background(), providers.ToolCall{ID: "c", Name: name, Arguments: args})
}

// The done test of issue 45: @modelcontextprotocol/server-everything from
// npm serves its echo tool to a council member, as mcp__everything__echo;
// the result is evidence the member cites, and the server's process sees
// none of Parley's keys.
func TestEverythingServesACouncilMember(t *testing.T) {
	t.Parallel()
	if v, _ := os.LookupEnv("OPENAI_API_KEY"); v != secretKey {
		t.Fatalf("OPENAI_API_KEY is %q, not TestMain's", v)
	}
	pool := mcptool.NewPool(map[string]config.MCPServerSpec{"everything": {Command: server(t, "@modelcontextprotocol/server-everything", "stdio")}}, os.LookupEnv)
	t.Cleanup(func() { _ = pool.Close() })
	tools, err := pool.Tools("everything")
	if err != nil {
		t.Fatal(err)
	}
	box := toolbox.New(tools, nil)
	if res := call(t, box, "mcp__everything__get-env", `{}`); res.IsError || strings.Contains(res.Text, secretKey) || !strings.Contains(res.Text, "PATH") {
		t.Errorf("the server's environment: %v %.300s", res.IsError, res.Text)
	}

	cfg := debatetest.SpineConfig(modes.All())
	cfg.Modes.Council = config.CouncilConfig{Members: []string{"gemini", "chatgpt"}, Chairman: "claude"}
	gemini := &debatetest.ToolFake{Agent: "gemini", Script: func(n int, req providers.Request) debatetest.ToolReply {
		if n == 1 {
			return debatetest.ToolReply{Calls: []providers.ToolCall{{ID: "e1", Name: "mcp__everything__echo", Arguments: `{"message":"the answer is 42"}`}}}
		}
		return debatetest.ToolReply{Text: "The server says 42 [E1]."}
	}}
	e := debatetest.NewMixedEngine(t, cfg, "council", map[string]providers.Provider{"gemini": gemini})
	events := &debatetest.EventLog{}
	e.Subscribe(events.Add)
	e.SetToolBoxes(func(a *debate.Agent) *toolbox.Box {
		if a.Name != "gemini" {
			return nil
		}
		return box
	})
	if err := e.Submit(context.Background(), "What does the server say?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	reqs := gemini.Requests()
	var offered []string
	for _, s := range reqs[0].Tools {
		offered = append(offered, s.Name)
	}
	if !strings.Contains(strings.Join(offered, ","), "mcp__everything__echo") {
		t.Fatalf("offered %v", offered)
	}
	res := reqs[1].Messages[len(reqs[1].Messages)-1].ToolResults
	if len(res) != 1 || res[0].IsError || !strings.HasPrefix(res[0].Content, "[E1] source: mcp:everything/echo") || !strings.Contains(res[0].Content, "the answer is 42") {
		t.Fatalf("result %+v", res)
	}
	recs := e.Evidence().Records()
	if len(recs) != 1 || recs[0].Kind != "mcp" || recs[0].Agent != "gemini" {
		t.Errorf("ledger %+v", recs)
	}
	dec := debatetest.LastOf[verdict.CouncilDecided](t, events)
	if dec.Evidence != verdict.EvidenceOptional || !strings.HasSuffix(dec.Sentence, " · 1 of 2 answers cite evidence") {
		t.Errorf("sentence %q (evidence %q)", dec.Sentence, dec.Evidence)
	}
	for _, a := range dec.Answers {
		if (a.Member == "gemini") != a.Citations.Supported() {
			t.Errorf("%s: %+v", a.Member, a.Citations)
		}
	}
}

// server-filesystem serves its folder and refuses outside it; its errors
// are the tool's results.
func TestFilesystemServerErrorsAreToolResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plan.txt"), []byte("ship on friday\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pool := mcptool.NewPool(map[string]config.MCPServerSpec{"fs": {Command: server(t, "@modelcontextprotocol/server-filesystem", dir)}}, os.LookupEnv)
	t.Cleanup(func() { _ = pool.Close() })
	tools, err := pool.Tools("fs")
	if err != nil {
		t.Fatal(err)
	}
	box := toolbox.New(tools, nil)
	if res := call(t, box, "mcp__fs__read_text_file", `{"path":"`+filepath.Join(dir, "plan.txt")+`"}`); res.IsError || !strings.Contains(res.Text, "ship on friday") || res.Source.Ref != "mcp:fs/read_text_file" {
		t.Errorf("read: %+v", res)
	}
	if res := call(t, box, "mcp__fs__read_text_file", `{"path":"/etc/passwd"}`); !res.IsError || !strings.Contains(res.Text, "denied") {
		t.Errorf("outside: %+v", res)
	}
	if res := call(t, box, "mcp__fs__read_text_file", `{"path": 7}`); !res.IsError {
		t.Errorf("bad arguments: %+v", res)
	}
}

// A server that cannot start, or starts and never answers, is an error
// the run reports, within the connect deadline; never a hang.
func TestBrokenServersAreErrors(t *testing.T) {
	t.Parallel()
	pool := mcptool.NewPool(map[string]config.MCPServerSpec{
		"missing": {Command: []string{filepath.Join(t.TempDir(), "no-such-server")}},
		"mute":    {Command: []string{"sleep", "600"}},
	}, os.LookupEnv)
	pool.Timeout = 500 * time.Millisecond // mute never answers: any deadline is reached
	t.Cleanup(func() { _ = pool.Close() })
	if _, err := pool.Tools("missing"); err == nil || !strings.Contains(err.Error(), "mcp:missing could not be started") {
		t.Errorf("missing: %v", err)
	}
	if _, err := pool.Tools("mute"); err == nil || !strings.Contains(err.Error(), "mcp:mute could not be started") {
		t.Errorf("mute: %v", err)
	}
	if _, err := pool.Tools("nope"); err == nil {
		t.Error("an undeclared server")
	}
}

func TestToolNames(t *testing.T) {
	t.Parallel()
	if got := mcptool.ToolName("fs", "read file/ü"); got != "mcp__fs__read_file__" {
		t.Errorf("got %q", got)
	}
	if got := mcptool.ToolName("fs", strings.Repeat("x", 100)); len(got) != 64 {
		t.Errorf("%d bytes", len(got))
	}
}
