package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// newTree builds a workspace folder inside a parent that also holds a
// secret file outside the workspace, and returns both paths.
func newTree(t *testing.T, files map[string]string) (root, outside string) {
	t.Helper()
	parent := t.TempDir()
	root = filepath.Join(parent, "ws")
	outside = filepath.Join(parent, "secret.txt")
	if err := os.WriteFile(outside, []byte("TOP SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func openWS(t *testing.T, root string) *Workspace {
	t.Helper()
	w, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// mustRefuse checks that a read of p fails and leaks nothing of the secret.
func mustRefuse(t *testing.T, w *Workspace, p string, want string) {
	t.Helper()
	got, err := w.Read(p)
	if err == nil {
		t.Fatalf("Read(%q) = %q, want an error", p, got)
	}
	if strings.Contains(got+err.Error(), "TOP SECRET") {
		t.Fatalf("Read(%q) leaked the secret: %v", p, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("Read(%q) error = %q, want it to mention %q", p, err, want)
	}
}

func TestJailRefusesPathsOutside(t *testing.T) {
	t.Parallel()
	root, outside := newTree(t, map[string]string{"main.go": "package main\n", "sub/a.go": "package sub\n"})
	symlink(t, outside, filepath.Join(root, "leak.txt"))
	symlink(t, filepath.Dir(outside), filepath.Join(root, "parentdir"))
	symlink(t, "/proc/self", filepath.Join(root, "proc"))
	w := openWS(t, root)

	cases := []struct{ path, want string }{
		{"../secret.txt", "outside the workspace"},
		{"sub/../../secret.txt", "outside the workspace"},
		{"..", "outside the workspace"},
		{outside, "absolute path"},
		{"/etc/passwd", "absolute path"},
		{"/proc/self/environ", "absolute path"},
		{"~/.ssh/id_rsa", "home folder"},
		{"leak.txt", "symlink"},
		{"parentdir/secret.txt", "symlink"},
		{"proc/environ", "outside the workspace"},
		{"nope.go", "does not exist"},
	}
	for _, c := range cases {
		mustRefuse(t, w, c.path, c.want)
		if _, err := w.List(c.path, false); err == nil {
			t.Errorf("List(%q) succeeded, want an error", c.path)
		}
	}
	// Inside paths still work, including a harmless ".." that stays inside.
	for _, p := range []string{"main.go", "./main.go", "sub/../main.go", "sub/a.go"} {
		if got, err := w.Read(p); err != nil || !strings.Contains(got, "package") {
			t.Errorf("Read(%q) = %q, %v", p, got, err)
		}
	}
}

func TestJailSymlinkInsideIsFollowed(t *testing.T) {
	t.Parallel()
	root, _ := newTree(t, map[string]string{"real/x.go": "package real\n"})
	symlink(t, "real/x.go", filepath.Join(root, "alias.go"))
	w := openWS(t, root)
	if got, err := w.Read("alias.go"); err != nil || !strings.Contains(got, "package real") {
		t.Fatalf("Read(alias.go) = %q, %v", got, err)
	}
}

func TestJailSymlinkLoop(t *testing.T) {
	t.Parallel()
	root, _ := newTree(t, nil)
	symlink(t, "b", filepath.Join(root, "a"))
	symlink(t, "a", filepath.Join(root, "b"))
	symlink(t, "self", filepath.Join(root, "self"))
	w := openWS(t, root)
	mustRefuse(t, w, "a", "symlink loop")
	mustRefuse(t, w, "self", "symlink loop")
	// A listing shows the loop as a symlink and does not hang.
	got, err := w.List(".", true)
	if err != nil || !strings.Contains(got, "a (symlink)") || !strings.Contains(got, "self (symlink)") {
		t.Fatalf("List = %q, %v", got, err)
	}
}

// A file listed as regular and swapped for a symlink to the outside before
// it is read must be refused.
func TestJailSwapBetweenListAndRead(t *testing.T) {
	t.Parallel()
	root, outside := newTree(t, map[string]string{"notes.txt": "harmless\n"})
	w := openWS(t, root)
	listing, err := w.List(".", false)
	if err != nil || !strings.Contains(listing, "notes.txt (9 bytes)") {
		t.Fatalf("List = %q, %v", listing, err)
	}
	target := filepath.Join(root, "notes.txt")
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, target)
	mustRefuse(t, w, "notes.txt", "outside the workspace")
}

// The swap can also land between the path check and the open; the open
// itself (through os.Root) must refuse then.
func TestJailSwapBetweenCheckAndOpen(t *testing.T) {
	t.Parallel()
	root, outside := newTree(t, map[string]string{"notes.txt": "harmless\n", "dir/f.txt": "inner\n"})
	w := openWS(t, root)
	w.beforeOpen = func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		symlink(t, outside, p)
	}
	mustRefuse(t, w, "notes.txt", "outside the workspace")

	// A folder on the way swapped for a link to the outside parent.
	w.beforeOpen = func(string) {
		if err := os.RemoveAll(filepath.Join(root, "dir")); err != nil {
			t.Fatal(err)
		}
		symlink(t, filepath.Dir(outside), filepath.Join(root, "dir"))
		if err := os.WriteFile(filepath.Join(filepath.Dir(outside), "f.txt"), []byte("TOP SECRET too\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mustRefuse(t, w, "dir/f.txt", "outside the workspace")
}

func TestReadTruncatesLargeFiles(t *testing.T) {
	t.Parallel()
	line := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdé\n" // 65 bytes, a 2-byte rune at the end
	big := strings.Repeat(line, (MaxFileBytes/len(line))+100)
	root, _ := newTree(t, map[string]string{"big.txt": big, "small.txt": "one\ntwo"})
	w := openWS(t, root)
	got, err := w.Read("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	note := fmt.Sprintf("of %d bytes; the read limit is 256 KiB per file]", len(big))
	if !strings.Contains(got, "[truncated: showing the first") || !strings.HasSuffix(got, note) {
		t.Fatalf("no truncation note: …%q", got[max(0, len(got)-200):])
	}
	body := got[strings.IndexByte(got, '\n')+1 : strings.LastIndex(got, "[truncated")]
	if len(body) > MaxFileBytes+1 || len(body) < MaxFileBytes-4 {
		t.Fatalf("shown %d bytes, want about %d", len(body), MaxFileBytes)
	}
	if !strings.HasPrefix(big, strings.TrimSuffix(body, "\n")) {
		t.Fatal("the shown part is not the start of the file")
	}
	if !strings.HasPrefix(got, fmt.Sprintf("read_file big.txt: %d bytes", len(big))) {
		t.Fatalf("header = %q", got[:60])
	}
	small, err := w.Read("small.txt")
	if err != nil || small != "read_file small.txt: 7 bytes, 2 lines\none\ntwo" {
		t.Fatalf("small = %q, %v", small, err)
	}
}

func TestReadRefusesBinary(t *testing.T) {
	t.Parallel()
	root, _ := newTree(t, map[string]string{
		"img.png":    "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"latin1.txt": "caf\xe9 au lait\n",
		"utf8.txt":   "café ☕\n",
		"empty.txt":  "",
	})
	w := openWS(t, root)
	mustRefuse(t, w, "img.png", "binary file (it contains NUL bytes")
	mustRefuse(t, w, "latin1.txt", "binary file (it is not valid UTF-8")
	if got, err := w.Read("utf8.txt"); err != nil || !strings.Contains(got, "café ☕") {
		t.Fatalf("utf8 = %q, %v", got, err)
	}
	if got, err := w.Read("empty.txt"); err != nil || !strings.HasSuffix(got, "(empty file)") {
		t.Fatalf("empty = %q, %v", got, err)
	}
	mustRefuse(t, w, ".", "is a folder")
}

// A multi-byte rune cut by the 8 KiB sniff window is still text.
func TestBinarySniffWindowCutsRune(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat("a", sniffBytes-1) + "é" + "tail")
	if why := binaryReason(data); why != "" {
		t.Fatalf("binaryReason = %q, want text", why)
	}
}

func TestListSkipsAndCaps(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"README.md":            "# hi\n",
		"cmd/app/main.go":      "package main\n",
		".git/HEAD":            "ref\n",
		"node_modules/x/i.js":  "x\n",
		"build/out.bin":        "x\n",
		"logs/today.log":       "x\n",
		"secret.env":           "x\n",
		"docs/generated/a.md":  "x\n",
		".gitignore":           "# comment\n*.log\n/secret.env\ndocs/generated/\n!keep.log\n",
		"pkg/deep/deeper/x.go": "package deeper\n",
	}
	root, _ := newTree(t, files)
	w := openWS(t, root)
	got, err := w.List(".", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md (5 bytes)", "cmd/app/main.go (13 bytes)", "cmd/", "pkg/deep/deeper/x.go", "logs/"} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) && !strings.Contains(got, want+" ") {
			t.Errorf("listing lacks %q:\n%s", want, got)
		}
	}
	entries, note, _ := strings.Cut(got, "[not listed")
	for _, gone := range []string{".git/", "node_modules/", "build/", "today.log", "secret.env", "docs/generated/"} {
		if strings.Contains(entries, gone) {
			t.Errorf("listing shows %q:\n%s", gone, got)
		}
	}
	if !strings.Contains(note, ".git/, build/, docs/generated/, logs/today.log, node_modules/, secret.env]") {
		t.Errorf("no note on skipped folders:\n%s", got)
	}
	flat, _ := w.List(".", false)
	if strings.Contains(flat, "cmd/app") || !strings.Contains(flat, "cmd/\n") || !strings.HasPrefix(flat, "list_file . (this folder only):") {
		t.Errorf("non-recursive listing:\n%s", flat)
	}
	sub, _ := w.List("cmd", true)
	if !strings.Contains(sub, "cmd/app/main.go") {
		t.Errorf("sub listing paths are not relative to the root:\n%s", sub)
	}
}

func TestListCap(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range MaxListEntries + 50 {
		files[fmt.Sprintf("f%04d.txt", i)] = "x"
	}
	root, _ := newTree(t, files)
	w := openWS(t, root)
	got, err := w.List(".", true)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(got, " (1 bytes)")
	if lines != MaxListEntries {
		t.Fatalf("listed %d files, want %d", lines, MaxListEntries)
	}
	if !strings.Contains(got, fmt.Sprintf("[listing capped at %d entries;", MaxListEntries)) {
		t.Fatalf("no cap note: …%s", got[len(got)-200:])
	}
}

func TestRunDispatch(t *testing.T) {
	t.Parallel()
	root, _ := newTree(t, map[string]string{"a.go": "package a\n"})
	w := openWS(t, root)
	if got, err := w.Run(Call{Tool: ToolRead, Path: "a.go"}); err != nil || !strings.Contains(got, "package a") {
		t.Fatalf("read: %q, %v", got, err)
	}
	if got, err := w.Run(Call{Tool: ToolList, Path: "."}); err != nil || !strings.Contains(got, "a.go (10 bytes)") {
		t.Fatalf("list: %q, %v", got, err)
	}
	if _, err := w.Run(Call{Tool: "write_file", Path: "a.go"}); err == nil {
		t.Fatal("an unknown tool ran")
	}
	if _, err := w.Run(Call{Tool: ToolComplete}); err == nil {
		t.Fatal("complete ran as a tool")
	}
	if _, err := w.Read("../x"); !errors.Is(err, ErrOutside) {
		t.Fatalf("want ErrOutside, got %v", err)
	}
}

func TestOpenRefusesFileRoot(t *testing.T) {
	t.Parallel()
	root, outside := newTree(t, nil)
	if _, err := Open(outside); err == nil {
		t.Fatal("a file opened as a workspace")
	}
	if _, err := Open(filepath.Join(root, "missing")); err == nil {
		t.Fatal("a missing folder opened as a workspace")
	}
}
