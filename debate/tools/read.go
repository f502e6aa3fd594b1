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
	rel, err := w.resolve(p)
	if err != nil {
		return "", err
	}
	if why := secretReason(rel); why != "" {
		return "", fmt.Errorf("%q is refused: %s; Parley does not send it to a model", rel, why)
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
