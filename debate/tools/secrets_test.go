package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Files that hold credentials are never read: whatever read_file returns
// is sent to a model provider.
func TestReadRefusesSecrets(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]bool{ // name → readable
		".env":                  false,
		".env.production":       false,
		"config/.ENV.local":     false,
		".env.example":          true,
		".netrc":                false,
		"deploy/id_ed25519":     false,
		"deploy/id_ed25519.pub": true,
		"certs/server.pem":      false,
		"certs/server.KEY":      false,
		"keyboard.go":           true,
		"docs/keys.md":          true,
	}
	for name := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("TOP SECRET value\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w := openWS(t, root)
	for name, readable := range files {
		if readable {
			if _, err := w.Read(name); err != nil {
				t.Errorf("Read(%q): %v", name, err)
			}
			continue
		}
		mustRefuse(t, w, name, "does not send it to a model")
	}
}

// A link does not launder a credential file: the checks apply to the file
// opened, not to the name asked for (issue 31: notes.txt -> .env was read).
func TestReadRefusesSecretsBehindLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks and link counts need a Unix file system")
	}
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "OPENAI_API_KEY=TOP SECRET\n")
	write("deploy/id_ed25519", "TOP SECRET key\n")
	write("plain.txt", "nothing to hide\n")
	symlink(t, ".env", filepath.Join(root, "notes.txt"))
	symlink(t, "deploy", filepath.Join(root, "keys"))
	symlink(t, "notes.txt", filepath.Join(root, "chain.txt"))
	if err := os.Link(filepath.Join(root, ".env"), filepath.Join(root, "readme.txt")); err != nil {
		t.Fatal(err)
	}
	w := openWS(t, root)
	mustRefuse(t, w, "notes.txt", "does not send it to a model")
	mustRefuse(t, w, "chain.txt", "does not send it to a model")
	mustRefuse(t, w, "keys/id_ed25519", "does not send it to a model")
	mustRefuse(t, w, "readme.txt", "hard links")
	if got, err := w.Read("plain.txt"); err != nil || !strings.Contains(got, "nothing to hide") {
		t.Fatalf("Read(plain.txt) = %q, %v", got, err)
	}

	// allow_hard_links reads a linked file, and still refuses the secret by
	// its own name.
	w.AllowHardLinks = true
	if err := os.Link(filepath.Join(root, "plain.txt"), filepath.Join(root, "copy.txt")); err != nil {
		t.Fatal(err)
	}
	if got, err := w.Read("copy.txt"); err != nil || !strings.Contains(got, "nothing to hide") {
		t.Fatalf("Read(copy.txt) with hard links allowed = %q, %v", got, err)
	}
	mustRefuse(t, w, ".env", "does not send it to a model")
}

// A file swapped after the symlinks were checked is not read: the file
// opened must be the one the checked path leads to.
func TestReadRefusesAFileSwappedAfterTheCheck(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need a Unix file system")
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("TOP SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "plain.txt"), []byte("fine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, "plain.txt", filepath.Join(root, "notes.txt"))
	w := openWS(t, root)
	w.beforeOpen = func(string) { // notes.txt now leads to .env
		_ = os.Remove(filepath.Join(root, "notes.txt"))
		symlink(t, ".env", filepath.Join(root, "notes.txt"))
	}
	mustRefuse(t, w, "notes.txt", "changed while it was opened")
}
