package mcp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
)

// tsClient is the folder of the TypeScript SDK client (installed from its package-lock.json by testbin.NodeClient).
const tsClient = "testdata/tsclient"

// TestTypeScriptClientInterop: the official TypeScript SDK, a client
// written by someone else, lists the tools of parley --demo mcp and runs
// one magi call (checking the result against the tool's output schema).
func TestTypeScriptClientInterop(t *testing.T) {
	t.Parallel()
	node := testbin.NodeClient(t, tsClient, "@modelcontextprotocol/sdk")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", parleyBin(t), filepath.Join(t.TempDir(), "ts.db"))
	cmd.Dir = tsClient
	cmd.Env = cleanEnv(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var got struct {
		Server string
		Tools  []struct {
			Name            string
			HasOutputSchema bool
		}
		IsError   bool
		Verdict   string
		Rounds    int
		SessionID string
		Text      string
		Progress  []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
		if !tool.HasOutputSchema {
			t.Errorf("%s: no output schema", tool.Name)
		}
	}
	slices.Sort(names)
	if got.Server != "parley" || !slices.Equal(names, toolNames) {
		t.Fatalf("server %q, tools %v", got.Server, names)
	}
	if got.IsError || got.Rounds != 3 || got.SessionID == "" || !strings.Contains(got.Text, "MAGI VERDICT: "+got.Verdict) ||
		!slices.Contains([]string{"APPROVED", "REJECTED", "NO CONSENSUS"}, got.Verdict) {
		t.Fatalf("magi over the TypeScript client: %+v", got)
	}
	// The TypeScript SDK hands notifications to a microtask but settles the
	// response at once, so those read in the same chunk as the result are
	// dropped there (the Go tests check that every one is sent first).
	if len(got.Progress) < 4 || !strings.Contains(strings.Join(got.Progress, "\n"), "MAGI round 1 of 3 finished") {
		t.Fatalf("progress seen by the TypeScript client: %q", got.Progress)
	}
}
