package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers/demo"
)

// testPace is the demo agents' pace in this package's in-process runs: fast,
// yet still a stream of separate words (users see demo.Pace).
const testPace = 200 * time.Microsecond

func TestMain(m *testing.M) {
	demo.Pace = testPace
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the real binary, compiled once for the tests that run it as a
// process (at the pace users see).
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildParley returns the real binary, building it on first use.
func buildParley(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "parley-cmd-test")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "parley")
		if out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}
