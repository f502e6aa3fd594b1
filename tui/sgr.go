package tui

import "strings"

// tightSGR rewrites a rendered row with the same cells in fewer bytes: a
// style closed and at once reopened ("\x1b[38;5;252mwait,\x1b[m\x1b[38;5;252m
// or") runs on, a style opened and at once closed goes, and so does a
// reset with no style to end. glamour writes every text segment as its own
// span, cut wherever its parser paused, so one row could come out in
// different bytes depending on where it was cut; tight, a row's bytes
// depend on its cells only. A row starts in the plain state; only a style
// set from the plain state is merged, so no attribute leaks through.
func tightSGR(row string) string {
	if strings.IndexByte(row, '\x1b') < 0 {
		return row
	}
	var b strings.Builder
	b.Grow(len(row))
	cur := ""     // the style in force, as set from the plain state; "" plain; compound: "\x00"
	openAt := -1  // where cur was written, when nothing was written since
	pending := "" // a reset not written yet
	for i := 0; i < len(row); {
		seq, ok := sgrAt(row, i)
		switch {
		case !ok:
			if pending != "" {
				b.WriteString(pending)
				pending, cur = "", ""
			}
			j := i + 1
			for j < len(row) && row[j] != '\x1b' {
				j++
			}
			b.WriteString(row[i:j])
			openAt, i = -1, j
			continue
		case isReset(seq) && openAt >= 0: // an empty span
			s := b.String()[:openAt]
			b.Reset()
			b.WriteString(s)
			cur, openAt = "", -1
		case isReset(seq):
			if cur != "" && pending == "" {
				pending = seq
			}
		case pending != "" && seq == cur:
			pending = "" // closed and reopened: the span runs on
		default:
			if pending != "" {
				b.WriteString(pending)
				pending, cur = "", ""
			}
			if cur == "" {
				cur, openAt = seq, b.Len()
			} else {
				cur, openAt = "\x00", -1 // on top of another style: kept as is
			}
			b.WriteString(seq)
		}
		i += len(seq)
	}
	b.WriteString(pending)
	return b.String()
}

// sgrAt returns the SGR sequence at row[i:], if there is one.
func sgrAt(row string, i int) (string, bool) {
	if !strings.HasPrefix(row[i:], "\x1b[") {
		return "", false
	}
	j := i + 2
	for j < len(row) && (row[j] >= '0' && row[j] <= '9' || row[j] == ';' || row[j] == ':') {
		j++
	}
	if j == len(row) || row[j] != 'm' {
		return "", false
	}
	return row[i : j+1], true
}

func isReset(seq string) bool { return seq == "\x1b[m" || seq == "\x1b[0m" }
