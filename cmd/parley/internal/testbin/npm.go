package testbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmDeadline bounds one npm ci (a cold cache on a loaded machine).
const npmDeadline = 5 * time.Minute

// NodeClient returns the path of node for an interop test that drives a
// client written by someone else (the official TypeScript MCP SDK, the
// openai npm package), installed from its pinned package-lock.json in
// dir. When dir/node_modules lacks pkg, it runs npm ci there first, once:
// a lock file makes test processes that need the same folder at once wait
// for the one that installs. Without node or npm, or when the install
// fails, the test is skipped with a line saying why and what to run; with
// CI=true in the environment it fails instead.
func NodeClient(t testing.TB, dir, pkg string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not installed: the interop test with "+pkg+" needs Node.js and npm")
	}
	probe := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")
	if _, err := os.Stat(probe); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		missing(t, "npm is not installed: the interop test with "+pkg+" needs it to install "+dir+" (npm ci)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	unlock, err := lock(filepath.Join(os.TempDir(), "parley-npm-"+hex.EncodeToString(sum[:8])+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(probe); err == nil {
		return node // installed by another process while this one waited
	}
	ctx, cancel := context.WithTimeout(context.Background(), npmDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, statErr := os.Stat(probe); err != nil || statErr != nil {
		missing(t, "npm ci in "+dir+" failed ("+errText(err, statErr)+"): "+strings.TrimSpace(string(out)))
	}
	t.Logf("installed %s into %s (npm ci)", pkg, dir)
	return node
}

// missing skips the test saying why, or fails it under CI.
func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPED: " + msg)
}

func errText(errs ...error) string {
	for _, err := range errs {
		if err != nil {
			return err.Error()
		}
	}
	return ""
}
