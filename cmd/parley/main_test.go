package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// testPace is the demo agents' pace in this package's in-process runs: fast,
// yet still a stream of separate words (users see demo.Pace).
const testPace = 200 * time.Microsecond

// fastDemo is the environment entry that makes the real binary's demo
// agents stream at testPace instead of demo.Pace (PARLEY_DEMO_PACE). A test
// sets it when what it checks comes once the answers are in, not while
// they stream: otherwise most of its time goes on watching words arrive.
// Tests that act mid-answer (a kill, a Ctrl+C, a second writer) keep the
// pace users see.
var fastDemo = "PARLEY_DEMO_PACE=" + testPace.String()

// executeIO runs a command line in-process with the given streams, the
// demo agents at testPace, in t's environment (see isolate).
func executeIO(t testing.TB, ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeWith(t, ctx, modes.All(), args, stdin, stdout, stderr)
}

// executeWith is executeIO for a program that knows the modes known (the
// toy mode's test adds one).
func executeWith(t testing.TB, ctx context.Context, known config.ModeList, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var env factory.Env = factory.Process{}
	dir := ""
	if e := envOf(t); e != nil {
		env, dir = e.env, e.dir
	}
	f := testFactory(known, env, stdin, stdout, stderr)
	f.Dir = dir
	return run(ctx, f, args)
}

// testFactory is a factory over the given streams (none a terminal) and
// environment, the demo agents at testPace.
func testFactory(known config.ModeList, env factory.Env, stdin io.Reader, stdout, stderr io.Writer) *factory.Factory {
	return factory.New(factory.IOStreams{In: stdin, Out: stdout, ErrOut: stderr}, env, testPace, known)
}

// buildParley returns the real binary, for the tests that run it as a
// process (at the pace users see): built once for the whole `go test` run
// (see testbin).
func buildParley(t testing.TB) string {
	t.Helper()
	return testbin.Parley(t)
}
