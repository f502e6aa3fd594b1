package configload

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// partialSeeds are user files that name each top-level key of the
// configuration, some with values the decoder must convert or refuse.
var partialSeeds = []string{
	"",
	"# nothing changed\n",
	"{}\n",
	"providers:\n  openai: {base_url: 'http://127.0.0.1:9/v1', api_key_env: K, max_retries: 0}\n",
	"providers:\n  openai: {base_url: http://x/v1}\n  mine: {type: openai-compatible, base_url: http://y/v1}\n",
	"providers:\n  gemini: {}\n",
	"providers:\n  gemini:\n",
	"providers:\n",
	"Providers:\n  OpenAI: {Base_URL: http://x/v1}\n",
	"default_mode: magi\nbudget_usd: 2.5\n",
	"budget_usd:\n",
	"budget_usd: '3'\n",
	"budget_usd: lots\n",
	"modes:\n  talk:\n    rounds: 3\n",
	"modes:\n  talk:\n    rounds: many\n",
	"agents:\n  - name: claude\n    model: claude-opus-4-1\n  - name: new\n    provider: openai\n    model: gpt-5\n",
	"agents:\n",
	"agents: []\n",
	"agents:\n  - name: gemini\n    tools: true\n  - name: claude\n    tools: fetch_url, files\n",
	"pricing:\n  gpt-6.1-sol: {input: 1, output: 2}\n",
	"pricing:\n  m: {prices: [{from: 2027-01-01, input: 1}]}\n",
	"models:\n  gemini-3.8-flash: {context: 100000}\n",
	"context: {budget_tokens: 50000}\n",
	"webhooks:\n  - url: https://example.com/hook\n    secret_env: S\n",
	"serve: {addr: '127.0.0.1:9999'}\n",
	"store: {path: /tmp/x.db}\n",
	"tools: {fetch: {timeout: 5s}}\n",
	"mcp_servers:\n  fs: {command: [x, y]}\n",
	"checkpoint_timeout: 90s\ncheckpoint_on_timeout: deny\n",
	"checkpoint_timeout: soon\n",
	"seating: fixed\n",
	"theme: light\nkeys:\n  copy: [c, ctrl+y]\n  find_next: \",\"\n",
	"keys: {copy: j}\n",
	"theme: {base: dark, accent: '#ff0000'}\n",
	"bench: {runs: 2}\n",
	"catalog: {url: http://x}\n",
	"agnets: []\n",
	"bogus: 1\nproviders: {openai: {base_url: http://x}}\n",
	"a.b: 1\n",
	"a::b: 1\n",
	"base: &b {base_url: http://x/v1}\nproviders: {openai: *b}\n",
	"<<: {default_mode: magi}\n",
	"providers: {openai: {base_url: http://x/v1, bogus: 1}}\n",
	"- a\n- b\n",
	"hello\n",
	"keys: 3\n",
}

// Decoding only the top-level keys the user's file names, over the
// generated built-in value, gives what decoding the whole merged tree does:
// the same configuration, the same warnings and sources, the same error.
func TestPartialDecodeEqualsWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, body := range partialSeeds {
		path := filepath.Join(dir, "parley.yaml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if msg := partialAgainstWhole(path); msg != "" {
			t.Errorf("seed %d %q: %s", i, body, msg)
		}
	}
}

func FuzzPartialDecodeEqualsWhole(f *testing.F) {
	for _, s := range partialSeeds {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if msg := partialAgainstWhole(path); msg != "" {
			t.Fatal(msg)
		}
	})
}

// partialAgainstWhole loads path both ways; "" when they agree.
func partialAgainstWhole(path string) string {
	part, perr := load(modes.All(), path, nil, false)
	whole, werr := load(modes.All(), path, nil, true)
	switch {
	case (perr == nil) != (werr == nil):
		return "partial error " + errString(perr) + ", whole error " + errString(werr)
	case perr != nil:
		if perr.Error() != werr.Error() {
			return "partial error " + perr.Error() + ", whole error " + werr.Error()
		}
		return ""
	}
	// Sources and warnings come from the file and the environment, not
	// the decode; the configuration is compared field by field to name
	// the first that differs.
	a, b := reflect.ValueOf(*part.Config), reflect.ValueOf(*whole.Config)
	for i := range a.NumField() {
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			return "field " + a.Type().Field(i).Name + " differs"
		}
	}
	if !reflect.DeepEqual(part.Sources, whole.Sources) || !reflect.DeepEqual(part.Warnings, whole.Warnings) {
		return "sources or warnings differ"
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}
