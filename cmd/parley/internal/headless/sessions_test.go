package headless

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate/store"
)

// The table fits its width whatever the titles' characters: ASCII (the
// fast path of cellWidth) and wide CJK cut with "…", a fork note kept
// whole.
func TestSessionListFitsItsWidth(t *testing.T) {
	t.Parallel()
	now := time.Now()
	list := []store.Summary{
		{ID: "aaaaaaaa1111", Title: strings.Repeat("plain words ", 20), Mode: "mention", LastActivity: now},
		{ID: "bbbbbbbb2222", Title: strings.Repeat("漢字の題名", 20), Mode: "talk", LastActivity: now},
		{ID: "cccccccc3333", Title: "short", Mode: "magi", LastActivity: now, Parent: "aaaaaaaa1111", ForkAt: 3},
	}
	var b strings.Builder
	if err := SessionList(&b, list, now, 80, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	// Every column starts at the same cell on every line; without a fork
	// note (kept whole, past the width) every line fits the width.
	idAt := -1
	for i, l := range lines {
		at := ansi.StringWidth(l[:strings.Index(l, []string{"ID", "aaaaaaaa", "bbbbbbbb", "cccccccc"}[i])])
		if idAt >= 0 && at != idAt {
			t.Errorf("line %d: its ID column starts at cell %d, the header's at %d:\n%s", i, at, idAt, b.String())
		}
		idAt = at
	}
	var unforked strings.Builder
	if err := SessionList(&unforked, list[:2], now, 80, false); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(unforked.String(), "\n"), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line %d cells wide, want at most 80: %q", w, l)
		}
	}
	if !strings.Contains(lines[1], "plain words") || !strings.Contains(lines[1], "…") || !strings.Contains(lines[2], "漢字") || !strings.Contains(lines[2], "…") {
		t.Errorf("long titles not cut with an ellipsis:\n%s", b.String())
	}
	if !strings.Contains(lines[3], "(fork of aaaaaaaa at turn 3)") {
		t.Errorf("a fork note was cut:\n%s", b.String())
	}
}

// cellWidth and truncateCells agree with ansi.StringWidth and
// ansi.Truncate on every string.
func FuzzCellWidth(f *testing.F) {
	for _, s := range []string{"", "plain", "漢字", "e\u0301", "tab\there", "\x1b[1mbold\x1b[0m", "~\x7f", "mention · a question…", "a\u00ad\u00e9\u2019\u2026b", "\u2026\u200d\u2026"} {
		f.Add(s, uint8(5))
	}
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Fatalf("cellWidth(%q) = %d, ansi.StringWidth %d", s, got, want)
		}
		if got, want := truncateCells(s, int(n)), ansi.Truncate(s, int(n), "…"); got != want {
			t.Fatalf("truncateCells(%q, %d) = %q, ansi.Truncate %q", s, n, got, want)
		}
	})
}
