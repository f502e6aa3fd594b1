package parley

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// manualFiles are the README and every page of docs/: the manual.
func manualFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("docs/ holds %d pages", len(pages))
	}
	return append([]string{"README.md"}, pages...)
}

// prose returns a Markdown file's lines outside fenced code blocks.
func prose(md string) []string {
	var lines []string
	inBlock := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			lines = append(lines, l)
		}
	}
	return lines
}

// anchorsOf lists the anchors GitHub gives a file's headings: lower case,
// punctuation dropped, spaces as hyphens, "-1", "-2" on repeats.
func anchorsOf(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(md) {
		h, ok := strings.CutPrefix(l, "#")
		if !ok {
			continue
		}
		h = strings.TrimSpace(strings.TrimLeft(h, "#"))
		h = strings.NewReplacer("`", "", "*", "").Replace(h)
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

var (
	inlineCode = regexp.MustCompile("`[^`]*`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// Every link of the README and the docs leads somewhere: a file of the
// repository and, with #anchor, one of its headings.
func TestManualLinksAndAnchors(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, file := range manualFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range prose(string(src)) {
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
				}
				body, err := os.ReadFile(dest)
				if err != nil {
					t.Errorf("%s: link %q: %v", file, target, err)
					continue
				}
				if anchor != "" && !anchorsOf(string(body))[anchor] {
					t.Errorf("%s: link %q: %s has no heading #%s", file, target, dest, anchor)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d links", checked)
	}
}

// The README is read in five minutes: at most 300 lines, the two set-up
// commands and what the tests need on its first screen.
func TestReadmeShortWithSetUpFirst(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 300 {
		t.Errorf("README.md has %d lines; at most 300, the rest belongs in docs/", len(lines))
	}
	first := strings.Join(lines[:min(len(lines), 30)], "\n")
	for _, want := range []string{"go run ./cmd/parley ", "go test ./... ", "tmux", "Chromium", "npm"} {
		if !strings.Contains(first, want) {
			t.Errorf("the README's first screen lacks %q", want)
		}
	}
}
