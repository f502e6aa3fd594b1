package tui

import (
	"os"
	"testing"

	"github.com/parleyhq/parley/internal/testparallel"
)

// TestMain runs more of the package's parallel tests at once than go
// test's default (two on a two-core runner): many drive a console whose
// demo agents stream at a pace, and wait more than they compute (the
// package took 15–20 s at two, 10–13 s at eight, the same CPU). See
// internal/testparallel; -parallel wins.
func TestMain(m *testing.M) {
	testparallel.Raise()
	os.Exit(m.Run())
}
