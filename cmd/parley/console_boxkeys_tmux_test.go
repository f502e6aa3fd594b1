package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBoxKeysRemappedInTmux: a key of each box remapped under keys: acts
// in the real binary, the key it replaced no longer does, and the box's
// hint names the new one — the palette (palette_down: ctrl+d moves the
// choice one row down, ↓ no longer does), the session list
// (sessions_close: x) and the box of one turn (box_close: x; q, the old
// key, leaves it open).
func TestBoxKeysRemappedInTmux(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	conf := filepath.Join(dir, "keys.yaml")
	if err := os.WriteFile(conf, []byte("keys:\n  palette_down: ctrl+d\n  sessions_close: x\n  box_close: [x, enter]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := startTmux(t, [2]int{100, 30}, consoleCmd(dir, bin, "-u NO_COLOR "+fastDemo, "boxkeys.db --demo --config "+conf))
	tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "1 mention") })

	// The palette: ↓ no longer moves the choice, ctrl+d moves it one row.
	tm.keys("C-p")
	tm.wait("the palette and its hint", func(s string) bool {
		return strings.Contains(s, "Commands") && strings.Contains(s, "ctrl+d choose below")
	})
	tm.text("mode")
	first := choiceRow(tm.wait("the modes", func(s string) bool { return strings.Contains(s, "› mode") && choiceRow(s) >= 0 }))
	tm.keys("Down")
	tm.keys("C-d")
	tm.wait("the choice one row down", func(s string) bool { return choiceRow(s) == first+1 })
	tm.keys("Escape")
	tm.wait("the palette closed", func(s string) bool { return !strings.Contains(s, "Commands") })

	// An exchange, for a turn to open and a session to list.
	tm.text("@chatgpt a retry loop?")
	tm.keys("Enter")
	tm.wait("the answer", func(s string) bool { return strings.Contains(s, "\ndone") })

	// The session list: x closes it.
	tm.keys("C-s")
	tm.wait("the session list and its hint", func(s string) bool { return strings.Contains(s, "Sessions") && strings.Contains(s, "x close") })
	tm.keys("x")
	tm.wait("x closed the session list", func(s string) bool { return !strings.Contains(s, "Sessions") })

	// The turn box: q (the old key) leaves it open, x closes it.
	tm.keys("Tab")
	tm.keys("Enter")
	tm.wait("the turn box and its hint", func(s string) bool { return strings.Contains(s, "x close") && strings.Contains(s, "Text") })
	tm.keys("q")
	tm.keys("C-s") // does nothing in a box: the box still shows, not the list
	s := tm.wait("x in the hint still", func(s string) bool { return strings.Contains(s, "x close") })
	if strings.Contains(s, "Sessions") {
		t.Fatalf("q or ctrl+s acted in the turn box:\n%s", s)
	}
	tm.keys("x")
	tm.wait("x closed the turn box", func(s string) bool { return !strings.Contains(s, "x close") })
}

// choiceRow is the screen row of the palette's choice (▸), -1 for none.
func choiceRow(screen string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "▸") {
			return i
		}
	}
	return -1
}
