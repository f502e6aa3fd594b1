// Package selfcmd words the command that runs this program again, for the
// advice lines ("resume it with: … --resume ID"): `parley` when that name
// on PATH is this very executable, `go run ./cmd/parley` when the
// executable is a `go run` build (in the Go build cache or a temporary
// directory), else the executable's own path.
package selfcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Name is how to run this program again from a shell.
func Name() string {
	exe, err := os.Executable()
	if err != nil {
		return "parley"
	}
	return name(exe, os.TempDir(), exec.LookPath)
}

// name decides for the executable exe, the temporary directory tmp and
// PATH's look-up.
func name(exe, tmp string, lookPath func(string) (string, error)) string {
	exe = resolved(exe)
	if onPath, err := lookPath("parley"); err == nil && resolved(onPath) == exe {
		return "parley"
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") || within(exe, resolved(tmp)) {
		return "go run ./cmd/parley"
	}
	if strings.ContainsAny(exe, " \t'\"$`\\;&|<>()*?[]#~") {
		return "'" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
	}
	return exe
}

func resolved(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
