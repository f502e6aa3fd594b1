package web_test

import (
	"os"
	"testing"

	"github.com/parleyhq/parley/internal/testparallel"
)

// TestMain runs more of the package's parallel tests at once than go
// test's default: they mostly wait (on Chromium and the servers it
// drives), not compute. See internal/testparallel; -parallel wins. The
// browser tests share one Chromium (sharedChromium), stopped here.
func TestMain(m *testing.M) {
	testparallel.Raise()
	code := m.Run()
	stopSharedChromium()
	os.Exit(code)
}
