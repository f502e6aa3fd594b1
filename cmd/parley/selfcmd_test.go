package main

import (
	"bytes"
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
	writeExecutable(t, bin, data)
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

// writeExecutable writes a program the test then runs, through a child
// process: a file this process holds open for writing is held, for a
// moment, by every child another test forks meanwhile, and running it
// then fails with "text file busy" (ETXTBSY; seen in the suite).
func writeExecutable(t *testing.T, path string, data []byte) {
	t.Helper()
	cmd := exec.Command("sh", "-c", `cat > "$1" && chmod 755 "$1"`, "sh", path)
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writing %s: %v\n%s", path, err, out)
	}
}
