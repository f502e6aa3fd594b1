package tui

import "fmt"

// Scrolling and moving through the transcript: the anchor, the selection
// and the position shown on its rule.

// anchorEndingAt returns the anchor that shows entry last at the bottom.
func (t *transcriptPane) anchorEndingAt(last int) (int, int) {
	need := t.height
	for i := last; i >= 0; i-- {
		n := len(t.item(i))
		if n >= need {
			return i, n - need
		}
		need -= n
	}
	return 0, 0
}

func (t *transcriptPane) clampAnchor() {
	if t.top >= len(t.entries) {
		t.top, t.topRow = max(len(t.entries)-1, 0), 0
	}
	if t.top < 0 {
		t.top, t.topRow = 0, 0
	}
	if t.topRow < 0 {
		t.topRow = 0
	}
}

// ScrollUp moves the view n lines back.
func (t *transcriptPane) ScrollUp(n int) {
	if t.follow {
		t.top, t.topRow = t.anchorEndingAt(len(t.entries) - 1)
		t.follow = false
	}
	t.topRow -= n
	for t.topRow < 0 && t.top > 0 {
		t.top--
		t.topRow += len(t.item(t.top))
	}
	if t.topRow < 0 {
		t.topRow = 0
	}
}

// ScrollDown moves the view n lines on; reaching the end resumes following.
func (t *transcriptPane) ScrollDown(n int) {
	if t.follow {
		return
	}
	t.topRow += n
	for t.top < len(t.entries)-1 && t.topRow >= len(t.item(t.top)) {
		t.topRow -= len(t.item(t.top))
		t.top++
	}
	if t.atBottom() {
		t.follow = true
	}
}

// atBottom reports whether the anchor shows the last line of the history.
func (t *transcriptPane) atBottom() bool {
	seen := -t.topRow
	for i := t.top; i < len(t.entries); i++ {
		seen += len(t.item(i))
		if seen > t.height {
			return false
		}
	}
	return true
}

// Home shows the first entry; End follows the last.
func (t *transcriptPane) Home() {
	t.follow, t.top, t.topRow = false, 0, 0
	if t.atBottom() {
		t.follow = true
	}
	if len(t.entries) > 0 && t.focused {
		t.sel = t.nextShown(-1, 1)
	}
}

func (t *transcriptPane) End() {
	t.follow = true
	if t.focused {
		t.sel = t.nextShown(len(t.entries), -1)
	}
}

// Latest follows the newest turn and drops the selection: after a line is
// sent the screen shows the latest turns, and the next ↑ starts from them,
// not from a turn selected before (seen: ↑ went back to turn 17 of 26).
func (t *transcriptPane) Latest() {
	t.follow = true
	if t.focused {
		t.sel = t.nextShown(len(t.entries), -1)
		return
	}
	t.sel = -1
}

// PageUp / PageDown scroll by a screen, keeping one line of context.
func (t *transcriptPane) PageUp()   { t.ScrollUp(max(t.height-1, 1)) }
func (t *transcriptPane) PageDown() { t.ScrollDown(max(t.height-1, 1)) }

// nextShown finds the next real entry from i in direction d (-1 if none).
func (t *transcriptPane) nextShown(i, d int) int {
	for j := i + d; j >= 0 && j < len(t.entries); j += d {
		if t.entries[j].Turn != 0 {
			return j
		}
	}
	return -1
}

// Move moves the selection by d entries and scrolls it into view.
func (t *transcriptPane) Move(d int) {
	if len(t.entries) == 0 {
		return
	}
	if t.sel < 0 {
		t.sel = t.nextShown(len(t.entries), -1)
		if t.lastShown >= 0 && !t.follow {
			t.sel = t.lastShown
		}
		t.reveal()
		return
	}
	if j := t.nextShown(t.sel, d); j >= 0 {
		t.sel = j
	}
	t.reveal()
}

// reveal scrolls so that the selected entry is on screen.
func (t *transcriptPane) reveal() {
	if t.sel < 0 {
		return
	}
	switch {
	case t.sel < t.top || (t.sel == t.top && t.topRow > 0):
		t.follow, t.top, t.topRow = false, t.sel, 0
	case t.sel > t.lastFull:
		if t.sel == t.nextShown(len(t.entries), -1) {
			t.follow = true
			return
		}
		t.follow = false
		t.top, t.topRow = t.anchorEndingAt(t.sel)
		if len(t.item(t.sel)) > t.height { // taller than the screen: show its start
			t.top, t.topRow = t.sel, 0
		}
	}
	t.lastFull = max(t.lastFull, t.sel)
}

// Focus marks the transcript focused and selects the last entry shown.
func (t *transcriptPane) Focus() {
	t.focused = true
	switch {
	case t.sel >= 0:
	case t.lastShown >= 0:
		t.sel = t.lastShown
	default:
		t.sel = t.nextShown(len(t.entries), -1)
	}
}

func (t *transcriptPane) Blur() { t.focused = false }

// Position says where the view is, for the status line: the selected turn
// while the transcript has the keys and it is not the newest (new turns
// never move the selection, so the line says it is an older one), else
// the top turn when the view is scrolled back.
func (t *transcriptPane) Position() string {
	if len(t.entries) == 0 {
		return ""
	}
	if t.focused && t.sel >= 0 && t.sel != t.nextShown(len(t.entries), -1) {
		return fmt.Sprintf("turn %d/%d selected", t.base+t.sel+1, t.Len())
	}
	if t.follow {
		return ""
	}
	return fmt.Sprintf("turn %d/%d", t.base+t.top+1, t.Len())
}
