package tui

import "math"

// finishedText is a finished answer drawn block by block (see blockList),
// from its end: a panel or a following transcript shows an answer's last
// lines, so only the blocks on screen are rendered, whatever the answer's
// length. A block is rendered once per width while it stays near the view.
type finishedText struct {
	text string
	blockList
}

func newFinishedText(text string) *finishedText {
	f := &finishedText{text: text}
	f.cut(text, maxFinishedBlock, true)
	f.from = len(f.blocks)
	return f
}

// Tail returns at least n of the answer's last lines (all of them when it
// has fewer), each width cells wide, and whether they are all of them.
func (f *finishedText) Tail(md *markdown, width, n int) ([]string, bool) {
	return f.blockList.Tail(md, f.text, width, n)
}

// All is every line of the answer.
func (f *finishedText) All(md *markdown, width int) []string {
	lines, _ := f.Tail(md, width, math.MaxInt)
	return lines
}
