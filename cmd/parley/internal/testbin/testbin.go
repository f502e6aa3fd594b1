// Package testbin gives tests the real parley binary, built once per
// version of the source for every package and every test process that asks.
//
// The binary lands in a cache folder under os.TempDir named by a hash of
// the module's non-test files (Go sources, go.mod, go.sum, embedded
// assets), the Go version and the platform: a `go test ./...` that runs
// cmd/parley, mcp and the others in parallel builds it once, and a second
// run with no change to the sources builds nothing. A file lock makes
// concurrent test processes wait for the one that builds.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Package is the import path built.
const Package = "github.com/parleyhq/parley/cmd/parley"

// cacheAge is how long an unused cached binary is kept, and cacheKeep how
// many binaries of other source versions are kept at most, the most
// recently used first: each is ~90 MB, and a day of edits across several
// worktrees built 23 GB of them and filled the disk.
const (
	cacheAge  = 24 * time.Hour
	cacheKeep = 6
)

var (
	once    sync.Once
	binPath string
	errPath error
)

// Parley returns the path of the real binary, building it on the first
// call of this process when the cache has no binary for these sources.
// It fails the test when the build fails.
func Parley(t testing.TB) string {
	t.Helper()
	once.Do(func() { binPath, errPath = build() })
	if errPath != nil {
		t.Fatal(errPath)
	}
	return binPath
}

func build() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	key, err := sourceKey(root)
	if err != nil {
		return "", err
	}
	base := filepath.Join(os.TempDir(), "parley-testbin")
	dir := filepath.Join(base, key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "parley")
	unlock, err := lock(filepath.Join(dir, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // still in use: spared by prune
		return bin, nil
	}
	tmp := fmt.Sprintf("%s.%d.tmp", bin, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, Package)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", Package, err, out)
	}
	if err := rewrite(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	prune(base, key)
	return bin, nil
}

// rewrite writes the file at path again with plain writes. The linker
// writes the binary through a memory mapping, and a process started from
// such a file paid ~8 % more CPU on this machine (a `parley ask` 21.9 ms
// against 20.3 ms for a copy of the same bytes, in turn; issue 50): the
// tests and the start-up benchmarks run the binary as an installed copy is.
// cp writes it, not this process: a file a test process holds open for
// writing is held, for a moment, by every child another test forks
// meanwhile, and running it then fails with "text file busy" (ETXTBSY).
func rewrite(path string) error {
	fresh := path + ".copy"
	if out, err := exec.Command("cp", path, fresh).CombinedOutput(); err != nil {
		_ = os.Remove(fresh)
		return fmt.Errorf("copying %s: %v: %s", path, err, out)
	}
	return os.Rename(fresh, path)
}

// prune removes the binaries of other source versions unused for a day,
// and all but the cacheKeep most recently used of the rest.
func prune(base, keep string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	type version struct {
		name string
		used time.Time
	}
	var others []version
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.Name() != keep && e.IsDir() {
			others = append(others, version{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(others, func(i, j int) bool { return others[i].used.After(others[j].used) })
	for i, v := range others {
		if i >= cacheKeep || time.Since(v.used) > cacheAge {
			_ = os.RemoveAll(filepath.Join(base, v.name))
		}
	}
}

// ModuleRoot is the folder holding the module's go.mod, found from the
// working directory (a test runs in its package's folder).
func ModuleRoot() (string, error) {
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
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// sourceKey hashes every file the binary can depend on (see buildInput;
// test data, hidden folders and installed npm packages are skipped), with
// the toolchain and platform.
func sourceKey(root string) (string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && buildInput(name) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s\n", filepath.ToSlash(rel))
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// buildInput says whether a file can change the binary: anything but
// tests and hidden files (documentation counts: parley help embeds docs/).
func buildInput(name string) bool {
	return !strings.HasSuffix(name, "_test.go") && !strings.HasPrefix(name, ".")
}

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, f)
	fmt.Fprintf(w, "\n%d\n", n)
	return err
}
