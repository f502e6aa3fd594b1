package testparallel

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

func TestMain(m *testing.M) {
	Raise()
	os.Exit(m.Run())
}

func TestForIsBounded(t *testing.T) {
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
		if got := For(c.procs, c.race); got != c.want {
			t.Errorf("For(%d, race=%v) = %d, want %d", c.procs, c.race, got, c.want)
		}
	}
}

// Raise in TestMain set -test.parallel, or the command line did and won.
func TestRaiseSetsTheFlagUnlessGiven(t *testing.T) {
	t.Parallel()
	got := flag.Lookup("test.parallel").Value.String()
	if !Given("test.parallel") {
		t.Fatal("TestMain's Raise left -test.parallel unset; the package runs at go test's default")
	}
	if want := strconv.Itoa(For(runtime.GOMAXPROCS(0), RaceEnabled)); got != want && !FromCommandLine() {
		t.Errorf("-test.parallel = %s, want %s", got, want)
	}
}
