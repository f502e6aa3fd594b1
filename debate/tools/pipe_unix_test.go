//go:build unix

package tools

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe must be refused at once, not block the open waiting for a writer.
func TestReadPipeDoesNotHang(t *testing.T) {
	t.Parallel()
	root, _ := newTree(t, map[string]string{"ok.txt": "x"})
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	w := openWS(t, root)
	mustRefuse(t, w, "fifo", "not a regular file")
	got, _ := w.List(".", false)
	if !strings.Contains(got, "fifo (special file)") {
		t.Fatalf("List = %q", got)
	}
}
