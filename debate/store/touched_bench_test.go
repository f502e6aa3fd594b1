package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
)

// BenchmarkTouched: one read of store.Touched (what serve's follow runs
// after every wake) over 2,000 sessions updated within its window, in a
// database of 10,000.
func BenchmarkTouched(b *testing.B) {
	st := openTemp(b)
	ctx := context.Background()
	var since time.Time
	for i := range 10000 {
		if i == 8000 {
			since = time.Now()
		}
		info := debate.SessionInfo{ID: fmt.Sprintf("s%011d", i), Mode: "mention", Created: time.Now()}
		if err := st.SaveOwnedSession(ctx, info, "", false); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := st.Touched(ctx, since)
		if err != nil || len(got) != 2000 {
			b.Fatalf("%d sessions, %v", len(got), err)
		}
	}
}
