package headless

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/internal/testparallel"
)

// maxListAllocsPerRow bounds what the table allocates for each session
// (and --wide, which also joins the agents and formats the tokens): its
// row, the cells formatting makes (the activity's age, the cost, a cut
// title) and nothing per column beyond them. Before issue 50's third round
// it was 8 and 9: the widths took a slice a row and the padding
// strings.Repeat a cell.
var maxListAllocsPerRow = map[bool]float64{false: 7, true: 8}

// maxListAllocsPerRowRace is the same bound under -race (CI's run), whose
// instrumentation allocates too: measured 8.01 and 9.52–9.58 a row, where the
// table before the third round makes 9.62 and 11.09.
var maxListAllocsPerRowRace = map[bool]float64{false: 8.5, true: 10}

// The session table's allocations grow with its rows by a small constant,
// counted rather than timed: 1,000 sessions of plain titles, the usual case.
func TestSessionListAllocatesABoundedAmountPerRow(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	const n = 1000
	list := make([]store.Summary, n)
	for i := range list {
		list[i] = store.Summary{ID: fmt.Sprintf("%012x", i), Title: "mention · @chatgpt a question to copy", Mode: "mention",
			Turns: 2, Cost: 0.0012, LastActivity: now.Add(-time.Duration(i) * time.Minute)}
	}
	for _, wide := range []bool{false, true} {
		allocs := testing.AllocsPerRun(5, func() {
			if err := SessionList(io.Discard, list, now, 100, wide); err != nil {
				t.Fatal(err)
			}
		})
		// 50 for the whole table (header, widths, the buffer), then the rows.
		bound := maxListAllocsPerRow[wide]
		if testparallel.RaceEnabled {
			bound = maxListAllocsPerRowRace[wide]
		}
		if perRow := allocs / n; allocs > bound*n+50 {
			t.Errorf("wide=%v: %.2f allocations a row, at most %v", wide, perRow, bound)
		} else {
			t.Logf("wide=%v: %.2f allocations a row", wide, perRow)
		}
	}
}
