// Package testparallel raises how many of a test package's parallel tests
// run at once, for packages whose tests mostly wait (on a child process, a
// browser, a node SDK client, a database cluster) rather than compute.
//
// go test's default -parallel is GOMAXPROCS, two on a small runner: two
// waiting tests at a time left the cores idle while such a package took
// most of the suite's wall time. A package opts in from its TestMain with
// Raise; a -parallel given on the command line wins. The figure is
// bounded (For) so a -race run or a small CI runner is not swamped.
package testparallel

import (
	"flag"
	"runtime"
	"strconv"
)

// For is how many parallel tests run at once for procs processors: four a
// processor, between 4 and 16, and half that (at least 2) under the race
// detector, whose instrumented tests take several times the memory and
// CPU.
func For(procs int, race bool) int {
	n := min(max(4*procs, 4), 16)
	if race {
		n = max(n/2, 2)
	}
	return n
}

// Raise sets -test.parallel to For(GOMAXPROCS, race detector on) unless
// the command line gave one. Call it from TestMain; it parses the flags.
func Raise() {
	flag.Parse()
	if Given("test.parallel") {
		fromCommandLine = true
		return
	}
	if err := flag.Set("test.parallel", strconv.Itoa(For(runtime.GOMAXPROCS(0), RaceEnabled))); err != nil {
		panic(err) // only without the testing package's flags: not a test binary
	}
}

// fromCommandLine: Raise found -test.parallel given and kept it.
var fromCommandLine bool

// FromCommandLine reports whether Raise kept a -parallel the command line
// gave rather than setting its own.
func FromCommandLine() bool { return fromCommandLine }

// Given reports whether the named flag was set on the command line.
func Given(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
