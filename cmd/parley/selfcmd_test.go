package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The advice to come back names the command actually run (issue 43, item
// 12): `parley` when the binary is the `parley` on PATH; `go run
// ./cmd/parley` when it is not and lives in a temporary directory, as a
// `go run` build does. The real binary, copied where each case needs it.
func TestResumeAdviceNamesTheCommandRun(t *testing.T) {
	built := buildParley(t)
	t.Parallel()
	dir := isolate(t)
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "parley")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	notTemp := filepath.Join(dir, "othertmp") // the binary is not under this TMPDIR
	if err := os.MkdirAll(notTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(env []string, args ...string) (string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = environ(t, env...), workdir(t)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, stderr.String())
		}
		return string(out), stderr.String()
	}
	out, _ := run(nil, "--demo", "--json", "ask", "@gemini a question")
	var asked struct {
		SessionID string `json:"session"`
	}
	if err := json.Unmarshal([]byte(out), &asked); err != nil || asked.SessionID == "" {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	onPath := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + getenv(t, "PATH"), "TMPDIR=" + notTemp}
	if _, errOut := run(onPath, "sessions", "fork", asked.SessionID, "--at", "1"); !strings.Contains(errOut, "continue with: parley --resume ") {
		t.Errorf("on PATH: %s", errOut)
	}
	inTemp := []string{"TMPDIR=" + filepath.Dir(dir)} // t.TempDir's parent: the binary is under it
	if _, errOut := run(inTemp, "sessions", "fork", asked.SessionID, "--at", "1"); !strings.Contains(errOut, "continue with: go run ./cmd/parley --resume ") {
		t.Errorf("a go run build: %s", errOut)
	}
}
