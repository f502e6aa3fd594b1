package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
)

// inspectorDir is the folder of the official MCP inspector (installed from
// its package-lock.json by testbin.NodeClient).
const inspectorDir = "testdata/inspector"

// inspectorResult is what the inspector's CLI prints for tools/list and
// tools/call.
type inspectorResult struct {
	Tools []struct {
		Name        string
		InputSchema struct {
			Properties map[string]map[string]any
		}
	}
	Content []struct{ Text string }
	IsError bool
}

// TestInspectorCLI (issue 43, item 8): the official MCP inspector's CLI,
// as a user types it (`mcp-inspector --cli …`), against parley --demo mcp
// over stdio and parley --demo serve's /mcp over streamable HTTP, both the
// real binary. Its --tool-arg converts a value by the property's declared
// type, so every input property declares one plain type (it did not
// convert ["null","number"]: "max_cost must be a number"); max_cost=0.5
// and members=[…] reach the tools; an unknown agent is answered with the
// values allowed (it was "allowed values: .").
//
// The first call of each door (tools/list) goes through the command a
// user types, cli.js --cli, which starts node a second time for the CLI
// proper (cli/build/index.js) with the same arguments and -e entries as
// its environment; the tool calls start that CLI directly: the same
// parsing and --tool-arg conversion, one node start (~0.4 s of CPU) less
// each.
//
// Every call loads the inspector (~1 s of CPU: its modules and ajv's
// schema compiler), so each tool call is made on one door: the schemas
// and the --tool-arg conversion are the same behind both, and what a
// door adds, its transport, is walked by its tools/list and a call over
// it (council and the unknown agent over stdio; magi, with its progress,
// over HTTP).
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	node := testbin.NodeClient(t, inspectorDir, "@modelcontextprotocol/inspector")
	build := filepath.Join(inspectorDir, "node_modules", "@modelcontextprotocol", "inspector", "cli", "build")
	cfgHome, dataHome := t.TempDir(), t.TempDir()
	serverEnv := []string{"XDG_CONFIG_HOME=" + cfgHome, "XDG_DATA_HOME=" + dataHome, fastDemo}
	stdio := []string{parleyBin(t), "--demo", "--db", filepath.Join(t.TempDir(), "stdio.db"), "mcp"}
	for _, door := range []struct {
		name string
		// target is what follows the CLI's name; env is the -e entries
		// (for a command) a user gives cli.js.
		target func(t *testing.T) (target, env []string)
		calls  []string // the tool calls made over this door
	}{
		{"stdio", func(*testing.T) ([]string, []string) { return stdio, serverEnv }, []string{"council", "unknown agent"}},
		{"http", func(t *testing.T) ([]string, []string) {
			return []string{serveURL(t, cfgHome, dataHome) + "/mcp", "--transport", "http"}, nil
		}, []string{"magi"}},
	} {
		t.Run(door.name, func(t *testing.T) {
			t.Parallel() // each door its own parley process and databases
			target, env := door.target(t)
			var wrapped []string
			for _, kv := range env {
				wrapped = append(wrapped, "-e", kv)
			}
			wrapped = append(wrapped, target...)
			run := func(t *testing.T, typed bool, args ...string) inspectorResult {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				// As typed, or the CLI that cli.js starts.
				cmd := exec.CommandContext(ctx, node, append(append([]string{filepath.Join(build, "cli.js"), "--cli"}, wrapped...), args...)...)
				cmd.Env = cleanEnv(t)
				if !typed {
					cmd = exec.CommandContext(ctx, node, append(append([]string{filepath.Join(build, "index.js")}, target...), args...)...)
					cmd.Env = append(cleanEnv(t), env...)
				}
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("mcp-inspector --cli %v: %v\n%s\n%s", args, err, out, stderr.String())
				}
				var res inspectorResult
				if err := json.Unmarshal(out, &res); err != nil {
					t.Fatalf("mcp-inspector --cli %v printed %q: %v", args, out, err)
				}
				return res
			}
			list := run(t, true, "--method", "tools/list")
			if len(list.Tools) != len(toolNames) {
				t.Errorf("the inspector lists %d tools, want %d", len(list.Tools), len(toolNames))
			}
			for _, tool := range list.Tools {
				for name, prop := range tool.InputSchema.Properties {
					if _, plain := prop["type"].(string); !plain {
						t.Errorf("%s.%s declares type %v: a client converts --tool-arg by one plain type", tool.Name, name, prop["type"])
					}
				}
			}
			call := func(t *testing.T, tool string, args ...string) inspectorResult {
				t.Helper()
				full := []string{"--method", "tools/call", "--tool-name", tool}
				for _, a := range args {
					full = append(full, "--tool-arg", a)
				}
				return run(t, false, full...)
			}
			text := func(r inspectorResult) string {
				var b strings.Builder
				for _, c := range r.Content {
					b.WriteString(c.Text)
				}
				return b.String()
			}
			checks := map[string]func(t *testing.T){
				"magi": func(t *testing.T) {
					magi := call(t, "magi", "question=Ship on Friday?", "single_round=true", "max_cost=0.5")
					if magi.IsError || !strings.Contains(text(magi), "MAGI VERDICT: ") {
						t.Errorf("magi with max_cost=0.5: error %v\n%s", magi.IsError, text(magi))
					}
				},
				"council": func(t *testing.T) {
					council := call(t, "council", "question=Kafka or NATS?", `members=["gemini","chatgpt","claude"]`, "max_cost=0.5")
					if s := text(council); council.IsError || !strings.Contains(s, "members: Gemini (demo/") || !strings.Contains(s, "· ChatGPT (demo/") || !strings.Contains(s, "· Claude (demo/") {
						t.Errorf("council with members=[gemini, chatgpt, claude]: error %v\n%s", council.IsError, s)
					}
				},
				"unknown agent": func(t *testing.T) {
					unknown := call(t, "ask", "question=hi", `agents=["nobody"]`)
					if s := text(unknown); !unknown.IsError || !strings.Contains(s, `unknown value "nobody"; allowed values: gemini, chatgpt, claude`) {
						t.Errorf("ask of an unknown agent: error %v, %q", unknown.IsError, s)
					}
				},
			}
			// One after the other: at once they only contend for the cores
			// (node's start-up is CPU).
			for _, name := range door.calls {
				t.Run(name, checks[name])
			}
		})
	}
}

// serveURL starts parley --demo serve (the real binary) on a free port and
// returns its address, read from the first line it prints.
func serveURL(t *testing.T, cfgHome, dataHome string) string {
	t.Helper()
	cmd := exec.Command(parleyBin(t), "--demo", "--db", filepath.Join(t.TempDir(), "serve.db"), "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(cleanEnv(t), "XDG_CONFIG_HOME="+cfgHome, "XDG_DATA_HOME="+dataHome, fastDemo)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		first <- line
	}()
	select {
	case line := <-first:
		url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
		if !ok {
			t.Fatalf("parley serve's first line is %q", line)
		}
		return url
	case <-time.After(time.Minute):
		t.Fatal("parley serve did not say where it listens within a minute")
	}
	return ""
}
