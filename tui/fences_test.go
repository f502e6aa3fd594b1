package tui

import (
	"strings"
	"testing"
)

func TestPlainFencesNameALanguageOnlyWhereNoneIsKnown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\n```\nx := 1\n```\nb", "a\n```text\nx := 1\n```\nb"},
		{"```go\nx := 1\n```\n", "```go\nx := 1\n```\n"},
		{"```nosuchlanguage\nx\n```", "```text\nx\n```"},
		{"~~~~\n```\ninside\n```\n~~~~\n```\nopen", "~~~~text\n```\ninside\n```\n~~~~\n```text\nopen"},
		{"   ```\nindented\n   ```", "   ```text\nindented\n   ```"},
		{"    ```\nfour spaces: code, not a fence", "    ```\nfour spaces: code, not a fence"},
		{"no fences at all", "no fences at all"},
	} {
		if got := plainFences(tc.in); got != tc.want {
			t.Errorf("plainFences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A fence without a language is drawn as plain code: its words, no guess
// at a language colouring them.
func TestFenceWithoutLanguageRendersAsPlainCode(t *testing.T) {
	md := newMarkdown()
	plain := strings.Join(md.Render("```\nSELECT name FROM users; -- not SQL to us\n```", 60), "\n")
	text := strings.Join(md.Render("```text\nSELECT name FROM users; -- not SQL to us\n```", 60), "\n")
	if plain != text {
		t.Errorf("a fence without a language renders as\n%q\nnot as plain text\n%q", plain, text)
	}
}
