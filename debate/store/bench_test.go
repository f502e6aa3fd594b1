package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

func benchEntry(turn int) debate.Entry {
	now := time.Now()
	return debate.Entry{Turn: turn, Kind: debate.KindReply, Speaker: "gemini", Display: "Gemini", Provider: "gemini",
		Model: "gemini-3-flash-preview", Mode: "mention", Prompt: "question", Text: strings.Repeat("word ", 200),
		Status: debate.StatusComplete, Usage: providers.Usage{InputTokens: 900, OutputTokens: 250}, Cost: 0.001,
		Started: now, Finished: now.Add(time.Second)}
}

// BenchmarkStoreTurn writes one finished turn the way the engine reports it
// (started, then finished) and waits for the commit.
func BenchmarkStoreTurn(b *testing.B) {
	st := openTemp(b)
	rec := st.Record()
	rec.Sink(debate.SessionStarted{Session: debate.SessionInfo{ID: "bench", Mode: "mention", Created: time.Now()}})
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		en := benchEntry(i + 1)
		started := en
		started.Text, started.Status = "", debate.StatusStreaming
		rec.Sink(debate.TurnStarted{Entry: started})
		rec.Sink(debate.TurnFinished{Entry: en})
		if err := rec.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenSession loads a long session for resuming.
func BenchmarkOpenSession(b *testing.B) {
	for _, n := range []int{10000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			st := openTemp(b)
			ctx := context.Background()
			info := debate.SessionInfo{ID: "long", Mode: "mention", Created: time.Now()}
			tx, err := st.w.Begin()
			if err != nil {
				b.Fatal(err)
			}
			if err := upsertMeta(ctx, tx, info, formatTime(time.Now())); err != nil {
				b.Fatal(err)
			}
			for i := 1; i <= n; i++ {
				if err := upsertEntry(ctx, tx, "long", benchEntry(i)); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				id, err := st.Resolve(ctx, "lo")
				if err != nil {
					b.Fatal(err)
				}
				_, entries, err := st.Load(ctx, id)
				if err != nil || len(entries) != n {
					b.Fatalf("%d entries, %v", len(entries), err)
				}
			}
		})
	}
}
