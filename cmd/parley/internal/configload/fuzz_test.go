package configload

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// Any configuration file loads or fails with a *debate.ConfigError that
// names the file; nothing in it can panic the loader.
func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		"",
		"default_mode: magi\n",
		"modes:\n  mention: [unclosed\n",
		"agnets: []\n",
		"modes:\n  talk:\n    rounds: many\n",
		"modes:\n  talk:\n    pace: soon\n",
		"agents:\n  - name: Gemini\n    provider: gemini\n    model: m\n",
		"providers:\n  x:\n    type: openia\n",
		"pricing:\n  gpt-6.1-sol: {input: -1}\n",
		"context: {budget_tokens: 1e99}\n",
		"\t- :\n",
		"agents: !!binary aGVsbG8=\n",
		"a: &a [*a]\n",
		"agents:\n  - name: claude\n    model: claude-opus-4-1\n  - name: new\n    provider: openai\n    model: gpt-5\n",
		"agents:\n  - provider: openai\n",
		"agents: [3]\n",
		"agents: hello\n",
		"agents:\n  - name: x\n    modle: m\n",
		"theme: light\nkeys:\n  copy: [c, ctrl+y]\n  find_next: \",\"\n",
		"keys: {copy: j}\n",
		"keys: 3\n",
		"keys:\n  copy: {a: b}\n",
		"keys:\n  copy: [[x]]\n",
		"theme: [dark]\n",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		loaded, err := Load(modes.All(), path, nil)
		if err != nil {
			var ce *config.ConfigError
			if !errors.As(err, &ce) || ce.File != path {
				t.Fatalf("error %T %v does not name the file", err, err)
			}
			return
		}
		if err := loaded.Config.Validate(); err != nil {
			t.Fatalf("loaded a configuration that does not validate: %v", err)
		}
	})
}
