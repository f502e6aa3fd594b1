package tools

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Read returns a text file of the workspace, cut at MaxFileBytes with a
// note. Binary files, folders and special files (devices, pipes) are refused.
func (w *Workspace) Read(p string) (string, error) {
	rel, target, err := w.resolveReal(p)
	if err != nil {
		return "", err
	}
	if err := refuseSecret(rel, target); err != nil {
		return "", err
	}
	if w.beforeOpen != nil {
		w.beforeOpen(rel)
	}
	// Non-blocking, so a pipe swapped in after the check cannot hang the
	// open; os.Root opens every component without following a symlink out.
	f, err := w.fsRoot.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return "", openErr(rel, err)
	}
	defer f.Close()
	st, err := f.Stat() // of what was opened, not of what the name points to now
	if err != nil {
		return "", openErr(rel, err)
	}
	switch {
	case st.IsDir():
		return "", fmt.Errorf("%q is a folder; use list_file to see what it holds", rel)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("%q is not a regular file (%s); only text files can be read", rel, st.Mode().Type())
	}
	if err := w.checkOpened(rel, target, st); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("%q cannot be read: %v", rel, shortErr(err))
	}
	if why := binaryReason(data); why != "" {
		return "", fmt.Errorf("%q is a binary file (%s, %d bytes); only text files can be read", rel, why, st.Size())
	}
	size := max(st.Size(), int64(len(data)))
	truncated := len(data) > MaxFileBytes
	if truncated {
		data = data[:runeCut(data, MaxFileBytes)]
	}
	var b strings.Builder
	lines := lineCount(data)
	fmt.Fprintf(&b, "read_file %s: %d bytes, %d %s\n", rel, size, lines, plural(lines, "line", "lines"))
	if len(data) == 0 {
		b.WriteString("(empty file)")
		return b.String(), nil
	}
	b.Write(data)
	if truncated {
		if data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[truncated: showing the first %d of %d bytes; the read limit is %d KiB per file]", len(data), size, MaxFileBytes>>10)
	}
	return b.String(), nil
}

// refuseSecret refuses a file that holds credentials by the name asked
// for or by the name a symlink leads to (notes.txt -> .env is .env).
func refuseSecret(rel, target string) error {
	for _, name := range []string{rel, target} {
		if why := secretReason(name); why != "" {
			shown := rel
			if name != rel {
				shown = fmt.Sprintf("%s (a link to %s)", rel, name)
			}
			return fmt.Errorf("%q is refused: %s; Parley does not send it to a model", shown, why)
		}
	}
	return nil
}

// checkOpened checks the file opened, not the name: it must be the file
// the symlinks led to when they were checked (not one swapped in since),
// and have one name only unless hard links are allowed.
func (w *Workspace) checkOpened(rel, target string, opened os.FileInfo) error {
	now, err := w.fsRoot.Lstat(filepath.FromSlash(target))
	if err != nil || !os.SameFile(opened, now) {
		return fmt.Errorf("%q changed while it was opened; it is not read", rel)
	}
	if n := linkCount(opened); n > 1 && !w.AllowHardLinks {
		return fmt.Errorf("%q is refused: the file has %d hard links, so its name says nothing of what it holds (modes.agent.allow_hard_links allows them)", rel, n)
	}
	return nil
}

// binaryReason says why data looks binary ("" when it is text): a NUL byte
// or invalid UTF-8 in its first bytes.
func binaryReason(data []byte) string {
	head := data[:min(len(data), sniffBytes)]
	if bytes.IndexByte(head, 0) >= 0 {
		return "it contains NUL bytes"
	}
	head = data[:runeCut(data, len(head))] // a rune cut by the window is not an error
	if !utf8.Valid(head) {
		return "it is not valid UTF-8 text"
	}
	return ""
}

// runeCut returns n moved back to the start of a rune, so data[:n] does
// not end in the middle of a UTF-8 sequence.
func runeCut(data []byte, n int) int {
	if n >= len(data) {
		return len(data)
	}
	for back := 0; back < utf8.UTFMax && n > 0; back++ {
		if utf8.RuneStart(data[n]) {
			return n
		}
		n--
	}
	return n
}

// lineCount counts the lines shown, the last one with or without a newline.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// secretReason says why a file probably holds credentials ("" when it does
// not). Whatever read_file returns goes to a model provider, so keys in
// .env files, private keys and credential stores are never read.
func secretReason(rel string) string {
	name := strings.ToLower(filepath.Base(filepath.FromSlash(rel)))
	switch {
	case name == ".env" || strings.HasPrefix(name, ".env.") &&
		!strings.HasSuffix(name, ".example") && !strings.HasSuffix(name, ".sample") && !strings.HasSuffix(name, ".template"):
		return "environment files hold API keys and passwords"
	case name == ".netrc" || name == ".git-credentials" || name == ".npmrc" || name == ".pypirc":
		return "it is a credential store"
	case strings.HasPrefix(name, "id_") && !strings.HasSuffix(name, ".pub") &&
		(strings.Contains(name, "rsa") || strings.Contains(name, "dsa") || strings.Contains(name, "ed25519")):
		return "it looks like a private SSH key"
	}
	switch filepath.Ext(name) {
	case ".pem", ".key", ".p12", ".pfx", ".keystore", ".jks":
		return "it looks like a private key or certificate store"
	}
	return ""
}
