package mcp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/providers/providertest"
)

// tsCheckpointRun is what testdata/tsclient/checkpoint.mjs saw.
type tsCheckpointRun struct {
	Asked   []string
	Results []struct {
		IsError                           bool
		Status, SessionID, Answered, Text string
		Round                             int
		Choices                           []string
	}
}

// runTSCheckpoint runs the TypeScript client (how: elicit or paused)
// against the real binary's parley mcp, every MAGI member seated on one
// OpenAI fake (two approve, one rejects), and returns what the client saw
// and the requests the fake received.
func runTSCheckpoint(t *testing.T, how string) (tsCheckpointRun, []providertest.Request) {
	t.Helper()
	node := testbin.NodeClient(t, tsClient, "@modelcontextprotocol/sdk")
	srv := debatetest.SplitMagiOpenAI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "checkpoint.mjs", parleyBin(t), filepath.Join(t.TempDir(), "ts.db"), how)
	cmd.Dir = tsClient
	cmd.Env = append(cleanEnv(t), "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var got tsCheckpointRun
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	return got, srv.Requests()
}

// checkNoteReachedRound2 checks that the fake saw rounds 1 and 2 only
// (stopped after round 2), and every round-2 request carries the host's
// note as the host's words.
func checkNoteReachedRound2(t *testing.T, reqs []providertest.Request) {
	t.Helper()
	var round2 int
	for _, r := range reqs {
		switch debatetest.MagiRoundOf(r.Messages) {
		case 2:
			round2++
			if !strings.Contains(debatetest.MagiAllText(r.Messages), "[Host] (after round 1): The budget was cut by half.") {
				t.Errorf("a round-2 request without the host's note:\n%s", debatetest.MagiAllText(r.Messages))
			}
		case 3:
			t.Error("a round-3 request after the host stopped the run")
		}
	}
	if len(reqs) != 6 || round2 != 3 {
		t.Errorf("%d requests, %d of round 2; want 3 of round 1 and 3 of round 2", len(reqs), round2)
	}
}

// The official TypeScript SDK as a client that declares elicitation: the
// magi call asks it after rounds 1 and 2 (elicitation/create); its note
// after round 1 reaches every round-2 request at the fake provider, its
// stop after round 2 ends the run, and the result says so.
func TestTypeScriptClientAnswersCheckpointElicitation(t *testing.T) {
	t.Parallel()
	got, reqs := runTSCheckpoint(t, "elicit")
	if len(got.Asked) != 2 || !strings.HasPrefix(got.Asked[0], "CHECKPOINT after round 1 of 3: ") || !strings.HasPrefix(got.Asked[1], "CHECKPOINT after round 2 of 3: ") {
		t.Errorf("elicitations %q", got.Asked)
	}
	if len(got.Results) != 1 || got.Results[0].IsError || !strings.Contains(got.Results[0].Text, "STOPPED by the host after round 2: 2 approve, 1 reject") {
		t.Fatalf("results %+v", got.Results)
	}
	checkNoteReachedRound2(t, reqs)
}

// The official TypeScript SDK as a client without elicitation: the magi
// call pauses after round 1 (a result, not an error, that the SDK checks
// against the tool's output schema), the checkpoint tool's note goes on to
// round 2's pause, its stop ends the run with the stopped outcome; the note
// reaches every round-2 request.
func TestTypeScriptClientAnswersPausedCheckpoint(t *testing.T) {
	t.Parallel()
	got, reqs := runTSCheckpoint(t, "paused")
	if len(got.Asked) != 0 || len(got.Results) != 3 {
		t.Fatalf("asked %q, results %+v", got.Asked, got.Results)
	}
	first, second, last := got.Results[0], got.Results[1], got.Results[2]
	if first.IsError || first.Status != "awaiting_host" || first.Round != 1 || strings.Join(first.Choices, ",") != "continue,note,drop,stop,swap" ||
		!strings.Contains(first.Text, "CHECKPOINT after round 1 of 3: ") {
		t.Errorf("the paused magi call: %+v", first)
	}
	if second.IsError || second.Status != "awaiting_host" || second.Round != 2 || second.Answered != "the host added a note after round 1 of 3" || second.SessionID != first.SessionID {
		t.Errorf("the note: %+v", second)
	}
	if last.IsError || last.Status != "finished" || !strings.Contains(last.Text, "STOPPED by the host after round 2: 2 approve, 1 reject") {
		t.Errorf("the stop: %+v", last)
	}
	checkNoteReachedRound2(t, reqs)
}
