package mcp_test

import (
	"os"
	"testing"

	"github.com/parleyhq/parley/internal/testparallel"
)

// TestMain runs more of the package's parallel tests at once than go
// test's default: they mostly wait (on Chromium, the parley binary, a node
// SDK client), not compute. See internal/testparallel; -parallel wins.
func TestMain(m *testing.M) {
	testparallel.Raise()
	os.Exit(m.Run())
}
