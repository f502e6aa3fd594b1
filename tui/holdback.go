package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// heldBack is the open block as shown while it streams: without an inline
// mark (**, *, _, `, ~~) that nothing closes yet, nor the words after it.
// Markdown draws such a mark raw ("Here is how I see **") until its
// closing mark arrives, and then the row changes under the reader; held
// back, the words appear once the span closes, or as written when the
// block ends (a finished block is rendered whole). A block holding a code
// fence is shown as is: marks there are code.
func heldBack(block string) string {
	if strings.Contains(block, "```") || strings.Contains(block, "~~~") {
		return block
	}
	for {
		cut := unclosedMark(block)
		if cut < 0 {
			return block
		}
		block = block[:cut]
	}
}

// markRun is a run of one mark character in a block.
type markRun struct {
	at, n int
	c     byte
}

// unclosedMark is where the last mark run that opens and is not closed
// starts (-1: none): a backtick run with no later run of its length, or the
// last of an odd number of emphasis runs of a character (runs that cannot
// open or close, like " * " or snake_case, do not count).
func unclosedMark(block string) int {
	runs := markRuns(block)
	cut := -1
	var open *markRun
	code := make([]bool, len(runs)) // runs inside a closed code span
	for i := range runs {
		r := &runs[i]
		if r.c != '`' {
			code[i] = open != nil
			continue
		}
		switch {
		case open == nil:
			open = r
		case open.n == r.n:
			open = nil
		default:
			code[i] = true
		}
	}
	if open != nil {
		cut = open.at
		for i, r := range runs {
			if r.at > open.at {
				code[i] = true // after the open span: held back with it
			}
		}
	}
	for _, c := range []byte{'*', '_', '~'} {
		last, count := -1, 0
		for i, r := range runs {
			if r.c == c && !code[i] && flanking(block, r) {
				last, count = r.at, count+1
			}
		}
		if count%2 == 1 && (cut < 0 || last < cut) {
			cut = last
		}
	}
	return cut
}

// markRuns lists the block's runs of *, _, ~ and `, skipping escaped ones.
func markRuns(block string) []markRun {
	var runs []markRun
	for i := 0; i < len(block); {
		c := block[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c != '*' && c != '_' && c != '~' && c != '`' {
			i++
			continue
		}
		j := i
		for j < len(block) && block[j] == c {
			j++
		}
		runs = append(runs, markRun{at: i, n: j - i, c: c})
		i = j
	}
	return runs
}

// flanking reports whether an emphasis run can open or close a span: not
// between two spaces (a list bullet, "2 * 3"), and for _ not inside a word.
func flanking(block string, r markRun) bool {
	before, _ := utf8.DecodeLastRuneInString(block[:r.at])
	after, _ := utf8.DecodeRuneInString(block[r.at+r.n:])
	space := func(c rune) bool { return c == utf8.RuneError || unicode.IsSpace(c) }
	if space(before) && space(after) && r.at+r.n < len(block) {
		return false
	}
	word := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }
	return r.c != '_' || !(word(before) && word(after))
}

// visibleText is the answer as shown while it streams: the complete blocks
// and the open block held back (see heldBack).
func visibleText(text string) string {
	done := 0
	for {
		i := blockEnd(text[done:])
		if i < 0 {
			break
		}
		done += i + 2
	}
	tail := strings.TrimLeft(text[done:], "\n")
	return text[:len(text)-len(tail)] + heldBack(tail)
}
