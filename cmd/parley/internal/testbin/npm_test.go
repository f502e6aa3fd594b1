package testbin

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recordingTB stands in for a test to see whether NodeClient skips or
// fails it (both end the test's goroutine, as testing's own do).
type recordingTB struct {
	testing.TB
	skipped, failed string
}

func (r *recordingTB) Skip(args ...any)  { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *recordingTB) Fatal(args ...any) { r.failed = fmt.Sprint(args...); runtime.Goexit() }

func (r *recordingTB) run(f func(testing.TB)) {
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
}

// Without node or npm an interop test says so in its skip, naming what is
// missing; under CI=true the same is a failure.
func TestNodeClientWithoutNodeSaysSo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		rec := &recordingTB{TB: t}
		rec.run(func(tb testing.TB) { NodeClient(tb, t.TempDir(), "openai") })
		got, other := rec.skipped, rec.failed
		if ci == "true" {
			got, other = rec.failed, rec.skipped
		}
		if !strings.Contains(got, "node is not installed") || other != "" {
			t.Errorf("CI=%q: skipped %q, failed %q", ci, rec.skipped, rec.failed)
		}
	}
}
