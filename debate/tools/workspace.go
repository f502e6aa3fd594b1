// Package tools holds the code-reading agent's workspace tools: list_file,
// read_file and complete, confined to one folder (the workspace root), and
// the parser of the XML tool calls models write. Nothing here writes or
// executes anything.
package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Limits of the tools. They are stated in the tool results when they bite.
const (
	MaxListEntries = 1000      // entries in one listing
	MaxFileBytes   = 256 << 10 // bytes of one file shown; the rest is cut with a note
	sniffBytes     = 8 << 10   // bytes looked at to tell binary files apart
)

// ErrOutside refuses a path that ends outside the workspace root.
var ErrOutside = errors.New("path is outside the workspace")

// Workspace is the folder the tools may read. Every path is resolved
// relative to it. The checks on the path give clear errors; the reads go
// through an os.Root, which refuses (atomically, at open time) any component
// that escapes the root, so a file swapped for a symlink after the check
// cannot lead outside.
type Workspace struct {
	root   string   // absolute, symlinks evaluated
	fsRoot *os.Root // the handle every open goes through
	ignore []ignorePattern

	// AllowHardLinks lets read_file read a file with more than one name
	// (modes.agent.allow_hard_links). Off, such a file is refused: a hard
	// link to a credential file carries an innocent name, and nothing
	// tells which of its names is the real one.
	AllowHardLinks bool

	// beforeOpen, when set by tests, runs between the path check and the
	// open, to swap files in the window a race would use.
	beforeOpen func(rel string)
}

// Open opens the workspace rooted at dir.
func Open(dir string) (*Workspace, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workspace %s: not a directory", dir)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	w := &Workspace{root: real, fsRoot: r}
	w.ignore = w.readGitignore()
	return w, nil
}

// Root is the workspace's absolute path, symlinks evaluated.
func (w *Workspace) Root() string { return w.root }

// Close releases the root handle.
func (w *Workspace) Close() error { return w.fsRoot.Close() }

// resolve checks a path the model gave and returns it cleaned, relative to
// the root, with forward slashes ("." for the root itself).
func (w *Workspace) resolve(p string) (string, error) {
	rel, _, err := w.resolveReal(p)
	return rel, err
}

// resolveReal is resolve with the path the name leads to once every
// symlink is followed (relative to the root, forward slashes).
func (w *Workspace) resolveReal(p string) (rel, target string, err error) {
	p = strings.TrimSpace(p)
	if p == "" {
		p = "."
	}
	if strings.ContainsRune(p, 0) {
		return "", "", fmt.Errorf("the path contains a NUL byte")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", "", fmt.Errorf("%w: %q is an absolute path; give a path relative to the workspace root (\".\" is the root)", ErrOutside, p)
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		return "", "", fmt.Errorf("%w: %q points into a home folder; give a path relative to the workspace root", ErrOutside, p)
	}
	joined := filepath.Join(w.root, filepath.FromSlash(p))
	rel, err = filepath.Rel(w.root, joined)
	if err != nil || escapes(rel) {
		return "", "", fmt.Errorf("%w: %q leaves the workspace root through \"..\"", ErrOutside, p)
	}
	real, err := filepath.EvalSymlinks(joined)
	switch {
	case err == nil:
		r, err := filepath.Rel(w.root, real)
		if err != nil || escapes(r) {
			return "", "", fmt.Errorf("%w: %q is a symlink (or inside one) that leads outside the workspace", ErrOutside, p)
		}
		target = filepath.ToSlash(r)
	case isLoop(err):
		return "", "", fmt.Errorf("%q is a symlink loop", p)
	case errors.Is(err, fs.ErrNotExist):
		return "", "", fmt.Errorf("%q does not exist (list_file shows what does)", p)
	default:
		return "", "", fmt.Errorf("%q cannot be resolved: %v", p, shortErr(err))
	}
	return filepath.ToSlash(rel), target, nil
}

func escapes(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}

func isLoop(err error) bool {
	return errors.Is(err, syscall.ELOOP) || (err != nil && strings.Contains(err.Error(), "too many links"))
}

// openErr turns an os.Root error into a tool error a model can act on.
func openErr(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%q does not exist (list_file shows what does)", p)
	case isLoop(err):
		return fmt.Errorf("%q is a symlink loop", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%q cannot be read: permission denied", p)
	case strings.Contains(err.Error(), "escapes from parent"), strings.Contains(err.Error(), "path escapes"):
		return fmt.Errorf("%w: %q leads outside the workspace", ErrOutside, p)
	}
	return fmt.Errorf("%q cannot be opened: %v", p, shortErr(err))
}

// shortErr drops the absolute path an *fs.PathError carries: the model
// only ever sees paths relative to the root.
func shortErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
