package main

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain lets more of the package's parallel tests run at once than
// go test's default (-parallel = GOMAXPROCS, 2 on the shared machine):
// most of them spend their time waiting, on a child parley, a tmux screen
// or a fake vendor's socket, not computing, so two at a time left the
// cores idle while the package took minutes. A -parallel the user passes
// wins. The figure is bounded (packageParallelism) so a -race run or a
// small CI runner is not swamped by child processes.
func TestMain(m *testing.M) {
	flag.Parse()
	if !flagGiven("test.parallel") {
		if err := flag.Set("test.parallel", strconv.Itoa(packageParallelism(runtime.GOMAXPROCS(0), raceEnabled))); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// packageParallelism is how many of the package's parallel tests run at
// once for procs processors: four a processor, between 4 and 16, and half
// that under the race detector (its instrumented tests take several times
// the memory and CPU).
func packageParallelism(procs int, race bool) int {
	n := min(max(4*procs, 4), 16)
	if race {
		n = max(n/2, 2)
	}
	return n
}

// flagGiven reports whether the named flag was set on the command line.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func TestPackageParallelismIsBounded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		procs int
		race  bool
		want  int
	}{
		{1, false, 4}, {2, false, 8}, {4, false, 16}, {64, false, 16},
		{1, true, 2}, {2, true, 4}, {64, true, 8},
	}
	for _, c := range cases {
		if got := packageParallelism(c.procs, c.race); got != c.want {
			t.Errorf("packageParallelism(%d, race=%v) = %d, want %d", c.procs, c.race, got, c.want)
		}
	}
	if !flagGiven("test.parallel") {
		t.Error("TestMain left -test.parallel unset; the package runs at go test's default")
	}
}
