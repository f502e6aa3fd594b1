// Package gsm8ktest finds the real GSM8K test set the tests read. It lives
// beside the project, at ../shared/data/gsm8k/ from the module root, and is
// never copied into the tree.
package gsm8ktest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// SHA256 is the published test split's checksum, written out again here so
// the tests check the code's pinned value against an independent copy.
const SHA256 = "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14"

// RealFile is the path of the shared test.jsonl. A test that needs it skips
// when it is missing, and fails under CI=true, where it must be present.
func RealFile(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
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

// moduleRoot is the nearest folder above the working directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
