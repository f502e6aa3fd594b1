package main

import (
	"os"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/providers/demo"
)

// testPace is the demo agents' pace in this package's in-process runs: fast,
// yet still a stream of separate words (users see demo.Pace).
const testPace = 200 * time.Microsecond

func TestMain(m *testing.M) {
	demo.Pace = testPace
	os.Exit(m.Run())
}

// buildParley returns the real binary, for the tests that run it as a
// process (at the pace users see): built once for the whole `go test` run
// (see testbin).
func buildParley(t testing.TB) string {
	t.Helper()
	return testbin.Parley(t)
}
