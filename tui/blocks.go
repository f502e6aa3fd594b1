package tui

import (
	"strings"
	"unicode/utf8"
)

// An answer is drawn block by block: a block ends at a blank line outside
// a code fence. A block that runs on past a limit without ending (a model
// looping over one list, one paragraph that never ends) is cut into pieces
// of at most that size, at a line end where there is one, else at a space:
// so no frame, and no render of a finished answer, ever works on more than
// one piece, whatever the answer's length. (A block of ordinary length is
// never cut: every frame is then exactly its full render.)

// Limits of a block's pieces: while the answer streams (the block still
// arriving is rendered again on each change, so it stays small) and once
// it is finished (a piece is rendered once, when it comes on screen).
// Once cut, the block's pieces are small (pieceSize), so that a view
// renders about what it shows.
const (
	maxOpenBlock     = 4 << 10
	maxFinishedBlock = 64 << 10
	pieceSize        = 1 << 10
)

// span is one block (or piece of a block) of an answer: text[start:end].
// A joined piece follows the one before it without the blank line between
// blocks; a plain one (inside a code fence cut into pieces) is wrapped as
// it stands, as a long open code block is.
type span struct {
	start, end    int
	joined, plain bool
}

// blockList is an answer's blocks, rendered from its end on demand at one
// width: only the blocks a view asks for are rendered, and of those above
// what was last asked for only a few are kept, so a long answer's styled
// lines never pile up in memory.
type blockList struct {
	blocks []span
	lines  [][]string // by block; nil: not rendered (or dropped)
	width  int
	from   int // no block below from holds lines

	// Where cutting stands: text[:done] is in blocks; the text from done
	// starts inside a code fence (fence), or is the rest of a block cut
	// into pieces (piece).
	done         int
	fence, piece bool
}

// keepAbove is how many rendered blocks above the last view's first block
// stay cached (a view a few lines higher is then still cheap).
const keepAbove = 8

// cut adds the blocks of text from done on: every block that has ended,
// and pieces of one that runs past limit. final: text is all there is, its
// last block ends with it.
func (b *blockList) cut(text string, limit int, final bool) {
	for {
		rest := text[b.done:]
		window := limit // how far a block end is looked for: never the whole rest
		if b.piece {
			window = pieceSize
		}
		if i := blockEndFrom(rest[:min(len(rest), window+1)], b.fence); i >= 0 {
			b.add(rest[:i], b.done, b.done+i, b.piece)
			b.done += i + 2
			b.fence, b.piece = false, false
			continue
		}
		if len(rest) <= window {
			break
		}
		b.addPiece(rest, pieceEnd(rest[:pieceSize]))
	}
	if rest := text[b.done:]; b.piece && !final {
		// What arrives of a block cut into pieces is its last line only.
		if i := strings.LastIndexByte(rest, '\n'); i > 0 {
			b.addPiece(rest, i+1)
		}
	}
	if final && b.done < len(text) {
		b.add(text[b.done:], b.done, len(text), b.piece)
		b.done = len(text)
	}
}

// addPiece cuts rest[:n], the start of a block that runs on, as a piece.
func (b *blockList) addPiece(rest string, n int) {
	piece := strings.TrimRight(rest[:n], " \n") // the cut's space or line end is not drawn
	b.add(piece, b.done, b.done+len(piece), true)
	b.fence = fenceOpenFrom(rest[:n], b.fence)
	b.done += n
	b.piece = true
}

// add appends the block text[start:end] (block), unless it is blank; cut:
// it is a piece of a block that ran past the limit (or that block's last
// piece), drawn plain if a code fence is open in it.
func (b *blockList) add(block string, start, end int, cut bool) {
	if strings.TrimSpace(block) == "" {
		return
	}
	plain := cut && (b.fence || strings.Contains(block, "```"))
	b.blocks = append(b.blocks, span{start: start, end: end, joined: b.piece, plain: plain})
	b.lines = append(b.lines, nil)
}

// pieceEnd is where a block's piece ends within head: after its last line
// end, else after its last space, else before its last character (never 0).
func pieceEnd(head string) int {
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		return i + 1
	}
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		return i + 1
	}
	i := len(head) - 1
	for i > 0 && !utf8.RuneStart(head[i]) {
		i--
	}
	if i == 0 {
		return len(head)
	}
	return i
}

// render draws block k of text at width.
func (b *blockList) render(md *markdown, text string, k, width int) []string {
	s := b.blocks[k]
	if s.plain {
		return fitAll(wrapPlain(text[s.start:s.end], width), width)
	}
	return fitAll(md.Render(text[s.start:s.end], width), width)
}

// Tail returns at least n of the last lines of text's blocks (all of them
// when they have fewer), each width cells wide, and whether they are all.
func (b *blockList) Tail(md *markdown, text string, width, n int) ([]string, bool) {
	if width != b.width {
		clear(b.lines)
		b.width, b.from = width, len(b.blocks)
	}
	count, i := 0, len(b.blocks)
	for i > 0 && count < n {
		i--
		if b.lines[i] == nil {
			b.lines[i] = b.render(md, text, i, width)
		}
		count += len(b.lines[i])
		if !b.blocks[i].joined {
			count++ // and the blank line that sets it off
		}
	}
	b.from = min(b.from, i)
	out := make([]string, 0, count)
	blankLine := strings.Repeat(" ", width)
	for k := i; k < len(b.blocks); k++ {
		if k > i && !b.blocks[k].joined {
			out = append(out, blankLine)
		}
		out = append(out, b.lines[k]...)
	}
	for ; b.from < i-keepAbove; b.from++ {
		b.lines[b.from] = nil
	}
	return out, i == 0
}

// blockEndFrom finds the first blank line of rest that is not inside a code
// fence, rest starting inside one when inFence: the end of a complete block
// (-1: none yet). One pass over rest.
func blockEndFrom(rest string, inFence bool) int {
	open := inFence
	for at := 0; ; {
		nl := strings.IndexByte(rest[at:], '\n')
		if nl < 0 {
			return -1
		}
		end := at + nl
		if strings.HasPrefix(strings.TrimSpace(rest[at:end]), "```") {
			open = !open
		}
		if !open && end+1 < len(rest) && rest[end+1] == '\n' {
			return end
		}
		at = end + 1
	}
}

// blockEnd is blockEndFrom outside a fence.
func blockEnd(rest string) int { return blockEndFrom(rest, false) }

// fenceOpenFrom reports whether text ends inside a ``` code fence, starting
// inside one when inFence.
func fenceOpenFrom(text string, inFence bool) bool {
	open := inFence
	for l := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			open = !open
		}
	}
	return open
}

// fenceOpen reports whether text ends inside a ``` code fence.
func fenceOpen(text string) bool { return fenceOpenFrom(text, false) }
