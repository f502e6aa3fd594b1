package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// skippedDirs are never listed: version control, dependencies and build
// output, which drown the code in a listing and are rarely what is asked.
var skippedDirs = []string{".git", ".hg", ".svn", "node_modules", "vendor", "dist", "build", "target", ".venv", "__pycache__"}

// List lists a folder of the workspace, one entry a line with its path
// relative to the root ("debate/engine.go (12345 bytes)", folders end in
// "/"). recursive walks the subfolders too. Skipped folders and .gitignore
// matches are named in a note; past MaxListEntries the listing stops and
// says so.
func (w *Workspace) List(p string, recursive bool) (string, error) {
	rel, err := w.resolve(p)
	if err != nil {
		return "", err
	}
	fsys := w.fsRoot.FS() // every step below stays inside the root
	st, err := fs.Stat(fsys, rel)
	if err != nil {
		return "", openErr(rel, err)
	}
	mode := "(recursive)"
	if !recursive {
		mode = "(this folder only)"
	}
	if !st.IsDir() {
		return fmt.Sprintf("list_file %s: it is a file, not a folder\n%s (%d bytes)", rel, rel, st.Size()), nil
	}
	var lines, skipped []string
	capped := false
	add := func(name string, d fs.DirEntry) error {
		if len(lines) >= MaxListEntries {
			capped = true
			return fs.SkipAll
		}
		lines = append(lines, entryLine(name, d))
		return nil
	}
	walk := func(name string, d fs.DirEntry, err error) error {
		if name == rel {
			return err // the folder itself: only a failure to read it matters
		}
		if err != nil { // an unreadable subfolder: it is listed already, go on
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if w.skip(name, d.IsDir()) {
			skipped = append(skipped, name+dirSuffix(d))
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err := add(name, d); err != nil {
			return err
		}
		if d.IsDir() && !recursive {
			return fs.SkipDir
		}
		return nil
	}
	if err := fs.WalkDir(fsys, rel, walk); err != nil && !errors.Is(err, fs.SkipAll) {
		return "", openErr(rel, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "list_file %s %s: %d %s\n", rel, mode, len(lines), plural(len(lines), "entry", "entries"))
	if len(lines) == 0 {
		b.WriteString("(empty folder)\n")
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if capped {
		fmt.Fprintf(&b, "[listing capped at %d entries; list a subfolder, or use recursive false, to see the rest]\n", MaxListEntries)
	}
	if len(skipped) > 0 {
		shown := skipped[:min(len(skipped), 20)]
		more := ""
		if len(skipped) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(skipped)-len(shown))
		}
		fmt.Fprintf(&b, "[not listed (version control, dependencies, build output, .gitignore): %s%s]\n", strings.Join(shown, ", "), more)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func entryLine(name string, d fs.DirEntry) string {
	switch {
	case d.IsDir():
		return name + "/"
	case d.Type()&fs.ModeSymlink != 0:
		return name + " (symlink)"
	case !d.Type().IsRegular():
		return name + " (special file)"
	}
	if info, err := d.Info(); err == nil {
		return fmt.Sprintf("%s (%d bytes)", name, info.Size())
	}
	return name
}

func dirSuffix(d fs.DirEntry) string {
	if d.IsDir() {
		return "/"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// skip reports whether a path (relative to the root) is left out of listings.
func (w *Workspace) skip(name string, dir bool) bool {
	if dir && slices.Contains(skippedDirs, path.Base(name)) {
		return true
	}
	for _, p := range w.ignore {
		if p.match(name, dir) {
			return true
		}
	}
	return false
}

// ignorePattern is one line of the root .gitignore, in the simple forms
// most files use: "name", "*.log", "dir/", "/anchored/path". Negations and
// "**" in the middle are not supported and are left out (listing too much
// is harmless; the jail, not this list, is what keeps reads safe).
type ignorePattern struct {
	glob     string
	anchored bool // match the whole relative path, not just the base name
	dirOnly  bool
}

func (p ignorePattern) match(name string, dir bool) bool {
	if p.dirOnly && !dir {
		return false
	}
	target := path.Base(name)
	if p.anchored {
		target = name
	}
	ok, _ := path.Match(p.glob, target)
	return ok
}

// readGitignore reads the root .gitignore through the jail; none is fine.
func (w *Workspace) readGitignore() []ignorePattern {
	data, err := fs.ReadFile(w.fsRoot.FS(), ".gitignore")
	if err != nil || len(data) > 64<<10 {
		return nil
	}
	return parseGitignore(string(data))
}

func parseGitignore(text string) []ignorePattern {
	var out []ignorePattern
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		line = strings.TrimPrefix(line, "**/")
		var p ignorePattern
		if strings.HasSuffix(line, "/") {
			p.dirOnly = true
			line = strings.TrimSuffix(line, "/")
		}
		if strings.HasPrefix(line, "/") {
			p.anchored = true
			line = strings.TrimPrefix(line, "/")
		} else if strings.Contains(line, "/") {
			p.anchored = true
		}
		if line == "" || strings.Contains(line, "**") {
			continue
		}
		if _, err := path.Match(line, ""); err != nil {
			continue // malformed glob
		}
		p.glob = line
		out = append(out, p)
	}
	return out
}
