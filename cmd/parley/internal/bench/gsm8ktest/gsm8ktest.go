// Package gsm8ktest finds the real GSM8K test set the tests read. It lives
// beside the project, at ../shared/data/gsm8k/ from the module root, and is
// never copied into the tree.
package gsm8ktest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
)

// SHA256 is the published test split's checksum, written out again here so
// the tests check the code's pinned value against an independent copy.
const SHA256 = "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14"

// RealFile is the path of the shared test.jsonl. A test that needs it skips
// when it is missing, and fails under CI=true, where it must be present.
func RealFile(tb testing.TB) string {
	tb.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(root, "..", "shared", "data", "gsm8k", "test.jsonl")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("this test needs the real GSM8K test set at %s (../shared/data/gsm8k/ from the module root): %v", path, err)
		}
		tb.Skipf("needs the real GSM8K test set at %s: %v", path, err)
	}
	return path
}
