package tui

import (
	"math"
	"strings"
)

// finishedText is a finished answer drawn block by block (a block ends at a
// blank line outside a code fence, as while it streamed), from its end:
// a panel or a following transcript shows an answer's last lines, so only
// the blocks on screen are rendered, whatever the answer's length. Each
// block is rendered once per width.
type finishedText struct {
	blocks []string
	lines  [][]string // by block, at width; nil: not rendered yet
	width  int
	from   int      // the first block rendered (len(blocks): none)
	all    []string // every line, once every block is rendered
}

func newFinishedText(text string) *finishedText {
	f := &finishedText{}
	for rest := text; rest != ""; {
		i := blockEnd(rest)
		block := rest
		if i >= 0 {
			block, rest = rest[:i], rest[i+2:]
		} else {
			rest = ""
		}
		if strings.TrimSpace(block) != "" {
			f.blocks = append(f.blocks, block)
		}
	}
	f.lines, f.from = make([][]string, len(f.blocks)), len(f.blocks)
	return f
}

// Tail returns at least n of the answer's last lines (all of them when it
// has fewer), each width cells wide, and whether they are all of them.
func (f *finishedText) Tail(md *markdown, width, n int) ([]string, bool) {
	if width != f.width {
		clear(f.lines)
		f.width, f.from, f.all = width, len(f.blocks), nil
	}
	if f.all != nil {
		return f.all[max(len(f.all)-n, 0):], n >= len(f.all)
	}
	count, i := 0, len(f.blocks)
	for i > 0 && count < n {
		i--
		if f.lines[i] == nil {
			f.lines[i] = fitAll(md.Render(f.blocks[i], width), width)
		}
		count += len(f.lines[i]) + 1 // and the blank line that sets it off
	}
	f.from = min(f.from, i)
	out := make([]string, 0, count)
	blankLine := strings.Repeat(" ", width)
	for k := i; k < len(f.blocks); k++ {
		if k > i {
			out = append(out, blankLine)
		}
		out = append(out, f.lines[k]...)
	}
	if i == 0 {
		f.all = out
	}
	return out, i == 0
}

// All is every line of the answer.
func (f *finishedText) All(md *markdown, width int) []string {
	lines, _ := f.Tail(md, width, math.MaxInt)
	return lines
}
