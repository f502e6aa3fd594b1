package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers/providertest"
)

// checkpointRun runs the real binary's magi command over one OpenAI fake
// (every member seated on it) with stdin, and returns its streams, exit
// code and the requests the fake received.
func checkpointRun(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int, reqs []providertest.Request) {
	t.Helper()
	f := newCheckpointFixture(t)
	stdout, stderr, code = f.run(t, stdin, args...)
	return stdout, stderr, code, f.srv.Requests()
}

// checkpointFixture is a database and one OpenAI fake every member is
// seated on: two approve and one rejects, a split council in every round.
type checkpointFixture struct {
	bin, dir string
	srv      *providertest.Server
	mode     string // the command: magi unless set
}

func newCheckpointFixture(t *testing.T) *checkpointFixture {
	t.Helper()
	srv := debatetest.SplitMagiOpenAI(t)
	return &checkpointFixture{bin: buildParley(t), dir: t.TempDir(), srv: srv}
}

func (f *checkpointFixture) command(args ...string) *exec.Cmd {
	cmd := exec.Command(f.bin, append([]string{"--db", filepath.Join(f.dir, "s.db"), cmp.Or(f.mode, "magi")}, args...)...)
	cmd.Dir = f.dir
	cmd.Env = append(os.Environ(), "HOME="+f.dir, "XDG_CONFIG_HOME="+filepath.Join(f.dir, "config"),
		"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+f.srv.URL, "ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "PARLEY_DB=")
	return cmd
}

func (f *checkpointFixture) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := f.command(args...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// `printf 'a note\nstop\n' | parley magi --checkpoint each_round …`: the
// note reaches every round-2 request as the host's words, the council
// stops after round 2 and its outcome says so.
func TestMagiCheckpointHeadlessNoteThenStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out, errOut, code, reqs := checkpointRun(t, "The budget was cut by half.\nstop\n", "--checkpoint", "each_round", "Should we ship on Friday?")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	byRound := map[int]int{}
	for _, r := range reqs {
		round := debatetest.MagiRoundOf(r.Messages)
		byRound[round]++
		has := strings.Contains(debatetest.MagiAllText(r.Messages), "[Host] (after round 1): The budget was cut by half.")
		if has != (round == 2) {
			t.Errorf("a round-%d request carries the note: %v", round, has)
		}
	}
	if byRound[1] != 3 || byRound[2] != 3 || byRound[3] != 0 {
		t.Errorf("requests by round %v, want 3 in rounds 1 and 2 and none in round 3", byRound)
	}
	for _, want := range []string{
		"parley: CHECKPOINT after round 1 of 3: 2 approve, 1 reject, 0 abstain, 0 invalid\n",
		"parley: the host added a note after round 1 of 3\n",
		"parley: the host stopped the run after round 2 of 3\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "STOPPED by the host after round 2: 2 approve, 1 reject, 0 abstain, 0 invalid") {
		t.Errorf("stdout lacks the outcome:\n%s", out)
	}
}

// With stdin at its end a checkpoint is a usage error naming the flag:
// a script never hangs.
func TestMagiCheckpointAtStdinEOFExits2(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	_, errOut, code, reqs := checkpointRun(t, "", "--checkpoint", "each_round", "Ship?")
	if code != cli.ExitUsage || !strings.Contains(errOut, "--checkpoint: the run reached a checkpoint and stdin is at its end") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if len(reqs) != 3 {
		t.Errorf("%d requests, want round 1's 3 only", len(reqs))
	}
	// A bad policy is refused before anything is called.
	_, errOut, code, reqs = checkpointRun(t, "", "--checkpoint", "sometimes", "Ship?")
	if code != cli.ExitUsage || !strings.Contains(errOut, `--checkpoint: unknown checkpoint policy "sometimes"`) || len(reqs) != 0 {
		t.Errorf("bad policy: exit %d, %d requests, stderr:\n%s", code, len(reqs), errOut)
	}
}

// --jsonl carries the checkpoint and the host's answer as events; an
// unreadable line is asked again, and never is the default.
func TestMagiCheckpointJSONL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out, errOut, code, _ := checkpointRun(t, "drop nobody\ndrop casper\n\n", "--jsonl", "--checkpoint", "each_round", "Ship?")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, `no member "nobody"`) || !strings.Contains(errOut, "try again") {
		t.Errorf("stderr lacks the refusal of a bad line:\n%s", errOut)
	}
	var types []string
	var answers []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type   string `json:"type"`
			Answer struct {
				Action string `json:"action"`
			} `json:"answer"`
			Choices []string `json:"choices"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		switch ev.Type {
		case "checkpoint":
			types = append(types, ev.Type)
			if len(ev.Choices) == 0 {
				t.Errorf("checkpoint without choices: %s", l)
			}
		case "checkpoint_answered":
			answers = append(answers, ev.Answer.Action)
		}
	}
	if len(types) != 2 {
		t.Errorf("%d checkpoint events, want 2", len(types))
	}
	if strings.Join(answers, ",") != "drop,continue" {
		t.Errorf("answers %v, want drop then continue", answers)
	}
}

// A process killed while it waits at a checkpoint leaves the run waiting
// there, saved and holding no lease: `parley magi --session ID` goes on
// from it at once (no busy session), asks the host there again, and the
// note it is given reaches round 2.
func TestMagiCheckpointSurvivesAKilledProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	id := f.killedAtCheckpoint(t, "CHECKPOINT after round 1 of 3", "--checkpoint", "each_round", "Should we ship on Friday?")
	if n := len(f.srv.Requests()); n != 3 {
		t.Fatalf("%d requests before the kill, want round 1's 3", n)
	}
	out, errOut, code := f.run(t, "Remember the freeze.\nstop\n", "--session", id, "--checkpoint", "each_round")
	if code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()[3:]
	if len(reqs) != 3 {
		t.Fatalf("%d requests after the resume, want round 2's 3", len(reqs))
	}
	for _, r := range reqs {
		if debatetest.MagiRoundOf(r.Messages) != 2 || !strings.Contains(debatetest.MagiAllText(r.Messages), "[Host] (after round 1): Remember the freeze.") {
			t.Errorf("a request after the resume is not round 2's with the note:\n%s", debatetest.MagiAllText(r.Messages))
		}
	}
	if !strings.Contains(errOut, "CHECKPOINT after round 1 of 3") || !strings.Contains(out, "STOPPED by the host after round 2: 2 approve, 1 reject") {
		t.Errorf("resume printed:\n%s\n%s", errOut, out)
	}
}

// killedAtCheckpoint runs the command with stdin open and never written
// (the host never answers), kills the process once stderr shows want, and
// returns the session it left waiting at the checkpoint.
func (f *checkpointFixture) killedAtCheckpoint(t *testing.T, want string, args ...string) string {
	t.Helper()
	cmd := f.command(args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitFor(t, 60*time.Second, want, func() bool { return strings.Contains(stderr.String(), want) })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	st, err := store.Open(filepath.Join(f.dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}
