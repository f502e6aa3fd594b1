package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"strings"
	"testing"
)

func TestPlainFencesNameALanguageOnlyWhereNoneIsKnown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"a\n```\nx := 1\n```\nb", "a\n```text\nx := 1\n```\nb"},
		{"```go\nx := 1\n```\n", "```go\nx := 1\n```\n"},
		{"```nosuchlanguage\nx\n```", "```text\nx\n```"},
		{"~~~~\n```\ninside\n```\n~~~~\n```\nopen", "~~~~text\n```\ninside\n```\n~~~~\n```text\nopen"},
		{"   ```\nindented\n   ```", "   ```text\nindented\n   ```"},
		{"    ```\nfour spaces: code, not a fence", "    ```\nfour spaces: code, not a fence"},
		{"no fences at all", "no fences at all"},
		{"```inline``` code starts this line", "```inline``` code starts this line"},
	} {
		if got := plainFences(tc.in); got != tc.want {
			t.Errorf("plainFences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A fence without a language is drawn as plain code: its words, no guess
// at a language colouring them.
func TestFenceWithoutLanguageRendersAsPlainCode(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(prefs.ThemeDark))
	plain := strings.Join(md.Render("```\nSELECT name FROM users; -- not SQL to us\n```", 60), "\n")
	text := strings.Join(md.Render("```text\nSELECT name FROM users; -- not SQL to us\n```", 60), "\n")
	if plain != text {
		t.Errorf("a fence without a language renders as\n%q\nnot as plain text\n%q", plain, text)
	}
}

// FuzzPlainFences: whatever Markdown a model sends, only fence openers
// change (their info string becomes "text"), no line is added, lost or
// otherwise altered, and a second pass changes nothing.
func FuzzPlainFences(f *testing.F) {
	for _, s := range []string{"a\n```\nx\n```\n", "~~~~\n```\n~~~~", "```go\n```nolang\n```", "  ```\n\n```py\n", "```a`b\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		out := plainFences(md)
		in, got := strings.Split(md, "\n"), strings.Split(out, "\n")
		if len(in) != len(got) {
			t.Fatalf("%d lines became %d", len(in), len(got))
		}
		for i := range in {
			if in[i] == got[i] {
				continue
			}
			marker, _, ok := fenceLine(in[i])
			if !ok || !strings.HasSuffix(got[i], marker+"text") || !strings.HasPrefix(in[i], strings.TrimSuffix(got[i], "text")) {
				t.Fatalf("line %q became %q", in[i], got[i])
			}
		}
		if again := plainFences(out); again != out {
			t.Fatalf("a second pass changed %q into %q", out, again)
		}
	})
}

// Code in a named language is highlighted: a language chroma defines in
// Go (go) and one of its XML definitions (haskell), which its registry
// (patched in third_party/chroma to be filled on first use, not at
// start-up) reads on the first lookup, each render unlike the same code
// drawn as plain text.
func TestNamedLanguagesAreHighlighted(t *testing.T) {
	t.Parallel()
	md := newMarkdown(newTheme(prefs.ThemeDark))
	for lang, code := range map[string]string{"go": "func main() { return 1 }", "haskell": "main :: IO ()\nmain = putStrLn \"hi\" -- greet"} {
		if !knownLanguage(lang) {
			t.Errorf("%s: no lexer", lang)
		}
		got := strings.Join(md.Render("```"+lang+"\n"+code+"\n```", 60), "\n")
		plain := strings.Join(md.Render("```text\n"+code+"\n```", 60), "\n")
		if got == plain {
			t.Errorf("%s is drawn as plain text:\n%q", lang, got)
		}
	}
}
