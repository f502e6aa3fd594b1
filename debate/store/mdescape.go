package store

import (
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Model text keeps its Markdown (emphasis, lists, tables, code) but can
// add no HTML and no heading to an export: outside its code blocks `&`
// and `<` become entities, and a `#` or a setext underline opening a
// line is backslash-escaped. Code blocks stay as written (they are inert),
// and one the text leaves open is closed, so it cannot swallow the turns
// that follow.

var (
	// lineLead is what may stand before a block's first character: the
	// indentation, blockquote markers and list markers.
	lineLead = lazyregexp.New(`^(?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]))*[ \t]*`)
	// setextLine would underline the line above into a heading.
	setextLine = lazyregexp.New(`^(?:=+|-+)[ \t]*$`)
	// linkTarget would make the bracketed text before it a link or a
	// link definition.
	linkTarget = lazyregexp.New(`\]([(:])`)
)

// modelMarkdown makes model text safe to embed in an export as Markdown.
// Should the escaped text still parse to a heading or HTML (a construct
// the line rules miss), every line is escaped, code too; should even that
// fail, the whole text is shown as code.
func modelMarkdown(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	code := codeLines([]byte(s))
	if out := closeOpenFence(escapeModel(s, code)); isInert(out) {
		return out
	}
	if out := closeOpenFence(escapeModel(s, nil)); isInert(out) {
		return out
	}
	return fenced(s)
}

func escapeModel(s string, code map[int]bool) string {
	var b strings.Builder
	offset := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		if code[offset] {
			b.WriteString(line)
		} else {
			b.WriteString(escapeModelLine(line))
		}
		offset += len(line)
	}
	return b.String()
}

// closeOpenFence closes a code block the text leaves open with a fence
// longer than any run of its character.
func closeOpenFence(s string) string {
	if endsOutsideCode(s) {
		return s
	}
	for _, c := range []string{"`", "~"} {
		closed := strings.TrimRight(s, "\n") + "\n" + strings.Repeat(c, max(3, longestRun(s, c[0])+1)) + "\n"
		if endsOutsideCode(closed) {
			return closed
		}
	}
	return s // isInert then refuses it
}

// codeLines marks the start offsets of the lines goldmark reads as code
// block content.
func codeLines(src []byte) map[int]bool {
	code := map[int]bool{}
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.Kind() == ast.KindFencedCodeBlock || n.Kind() == ast.KindCodeBlock {
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				code[lineStart(src, lines.At(i).Start)] = true
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return code
}

// isInert reports whether s, read as Markdown, holds no heading, no HTML
// and no link, and leaves no block open.
func isInert(s string) bool {
	if !endsOutsideCode(s) {
		return false
	}
	inert := true
	doc := goldmark.New().Parser().Parse(text.NewReader([]byte(s)))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.(type) {
		case *ast.Heading, *ast.HTMLBlock, *ast.RawHTML, *ast.AutoLink, *ast.Link, *ast.Image:
			inert = false
		}
		return ast.WalkContinue, nil
	})
	return inert
}

// endsOutsideCode reports whether a line after s would be read as a
// paragraph of its own, not as more of a code block s left open.
func endsOutsideCode(s string) bool {
	doc := goldmark.New().Parser().Parse(text.NewReader([]byte(s + "\n\nparley-end\n")))
	last := doc.LastChild()
	return last != nil && last.Kind() == ast.KindParagraph
}

func lineStart(src []byte, at int) int {
	for at > 0 && src[at-1] != '\n' {
		at--
	}
	return at
}

// escapeModelLine neutralises HTML, entities, headings and links
// on one line of model text outside code.
func escapeModelLine(line string) string {
	lead := lineLead.FindString(line)
	body := line[len(lead):]
	if strings.HasPrefix(body, "#") || setextLine.MatchString(strings.TrimRight(body, "\r\n")) {
		body = `\` + body
	}
	body = strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(body)
	body = linkTarget.ReplaceAllString(body, `]\$1`)
	return lead + body
}

// inlineMarkdown makes one line of outside text (a name, a model, an
// error) safe inside a heading or a list item: no HTML, no entity, no
// link; its emphasis stays, backticks show as written.
func inlineMarkdown(s string) string {
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", "`", "\\`").Replace(oneLine(s))
	s = linkTarget.ReplaceAllString(s, `]\$1`)
	if strings.HasPrefix(s, "#") {
		s = `\` + s
	}
	return s
}

// fenced wraps s in a code fence longer than any backtick run inside it.
func fenced(s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "\n" + s + "\n" + fence + "\n"
}

// codeSpan is s as inline code, whatever backticks it holds.
func codeSpan(s string) string {
	s = oneLine(s)
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return ticks + pad + s + pad + ticks
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
