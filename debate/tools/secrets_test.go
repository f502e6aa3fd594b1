package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// Files that hold credentials are never read: whatever read_file returns
// is sent to a model provider.
func TestReadRefusesSecrets(t *testing.T) {
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
