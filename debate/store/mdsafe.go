package store

import (
	"regexp"
	"strings"
)

// Text a model or a user wrote goes into the Markdown export as text: it
// may format itself (emphasis, lists, code) but never add HTML, a heading
// that would pass for a turn of its own, or a link ("javascript:" or any).

var (
	atxHeading    = regexp.MustCompile(`^ {0,3}#`)
	setextLine    = regexp.MustCompile(`^ {0,3}(=+|-+)\s*$`)
	linkReference = regexp.MustCompile(`^ {0,3}\[[^\]]*\]:`)
	fenceOpen     = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
)

// mdText makes a block of text safe: outside its code fences '<' is
// escaped, a line that would be a heading or a link definition is
// escaped, and "](" no longer makes a link; a fence it leaves open is
// closed, so the export's own headings after it stay headings.
func mdText(s string) string {
	lines := strings.Split(s, "\n")
	fence := "" // the open fence's marker
	for i, l := range lines {
		if fence != "" {
			if m := fenceOpen.FindStringSubmatch(l); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(l[len(m[0]):]) == "" {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(l); m != nil {
			fence = m[1]
			continue
		}
		l = mdInline(l)
		if atxHeading.MatchString(l) || setextLine.MatchString(l) && i > 0 || linkReference.MatchString(l) {
			l = `\` + strings.TrimLeft(l, " ")
		}
		lines[i] = l
	}
	out := strings.Join(lines, "\n")
	if fence != "" {
		out += "\n" + fence
	}
	return out
}

// mdInline makes text inside a line (a heading, a sentence) safe: no
// HTML, no link.
func mdInline(s string) string {
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, "](", `]\(`)
}
