package main

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/parleyhq/parley/internal/testparallel"
)

// TestMain lets more of the package's parallel tests run at once than
// go test's default (-parallel = GOMAXPROCS, 2 on the shared machine):
// most of them spend their time waiting, on a child parley, a tmux screen
// or a fake vendor's socket, not computing, so two at a time left the
// cores idle while the package took minutes. A -parallel the user passes
// wins; the figure is testparallel.For's, bounded so a -race run or a
// small CI runner is not swamped by child processes.
func TestMain(m *testing.M) {
	testparallel.Raise()
	os.Exit(m.Run())
}

func TestPackageParallelismIsBounded(t *testing.T) {
	t.Parallel()
	if !testparallel.Given("test.parallel") {
		t.Fatal("TestMain left -test.parallel unset; the package runs at go test's default")
	}
	want := testparallel.For(runtime.GOMAXPROCS(0), testparallel.RaceEnabled)
	if got := flag.Lookup("test.parallel").Value.String(); got != strconv.Itoa(want) && !testparallel.FromCommandLine() {
		t.Errorf("-test.parallel = %s, want %d (4 a core, 4 to 16, half under -race)", got, want)
	}
}
