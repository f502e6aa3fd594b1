package openaiapi

import "strings"

// channel turns the turns of one kind (deliberation, or answer) into one
// linear text: turns run in parallel, but a client reads a single stream,
// so the oldest open piece is written live and the others wait whole
// until it ends. Pieces are separated by a blank line.
type channel struct {
	emit    func(string) // called with each stretch of text, in order
	pieces  []*piece     // oldest first; pieces[0] is being written
	byTurn  map[int]*piece
	written bool
	all     strings.Builder // everything emitted

	// squeeze keeps at most one blank line anywhere in the text (the
	// deliberation, joined from fields and labels that each set themselves
	// off); newlines counts the newlines the text written so far ends with.
	squeeze  bool
	newlines int
}

type piece struct {
	pending strings.Builder
	started bool // its first text went out (the separator is behind it)
	done    bool
}

func newChannel(emit func(string)) *channel {
	return &channel{emit: emit, byTurn: map[int]*piece{}}
}

// open starts turn's piece with a header (may be empty).
func (c *channel) open(turn int, header string) {
	p := &piece{}
	p.pending.WriteString(header)
	c.pieces = append(c.pieces, p)
	c.byTurn[turn] = p
	c.flush()
}

// add appends text to turn's piece.
func (c *channel) add(turn int, text string) {
	if p := c.byTurn[turn]; p != nil && !p.done {
		p.pending.WriteString(text)
		c.flush()
	}
}

// close ends turn's piece with a last text (may be empty).
func (c *channel) close(turn int, footer string) {
	p := c.byTurn[turn]
	if p == nil || p.done {
		return
	}
	p.pending.WriteString(footer)
	p.done = true
	delete(c.byTurn, turn)
	c.flush()
}

// line adds a finished piece of its own.
func (c *channel) line(text string) {
	p := &piece{done: true}
	p.pending.WriteString(text)
	c.pieces = append(c.pieces, p)
	c.flush()
}

// end closes every open piece (an exchange cut short) and writes all.
func (c *channel) end() {
	for _, p := range c.pieces {
		p.done = true
	}
	clear(c.byTurn)
	c.flush()
}

// has reports whether the turn has an open piece here.
func (c *channel) has(turn int) bool { return c.byTurn[turn] != nil }

func (c *channel) flush() {
	for len(c.pieces) > 0 {
		p := c.pieces[0]
		if text := p.pending.String(); strings.TrimSpace(text) != "" || (p.started && text != "") {
			if !p.started {
				text = strings.TrimLeft(text, "\n")
				if c.written {
					text = "\n\n" + text
				}
				p.started = true
			}
			if c.squeeze {
				text = c.squeezed(text)
			}
			if text != "" {
				c.written = true
				c.all.WriteString(text)
				c.emit(text)
			}
		}
		p.pending.Reset()
		if !p.done {
			return
		}
		c.pieces = c.pieces[1:]
	}
}

// text is everything the channel has written.
func (c *channel) text() string { return c.all.String() }

// squeezed is text with no run of more than two newlines, counting the
// newlines already written before it.
func (c *channel) squeezed(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			c.newlines = 0
			b.WriteByte(text[i])
			continue
		}
		if c.newlines < 2 {
			b.WriteByte('\n')
		}
		c.newlines++
	}
	return b.String()
}
