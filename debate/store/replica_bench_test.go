package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// backendName names the database of this run in benchmark names.
func backendName() string {
	if onPostgres != nil {
		return "postgres"
	}
	return "sqlite"
}

// BenchmarkStoreTurns is how many turns one writer saves a second (each
// Append is its own transaction: numbered, fenced, committed), on SQLite
// and on Postgres (the second run of TestMain). docs/serve.md quotes it.
//
//	go test -run '^$' -bench 'StoreTurns|FollowLag' ./debate/store/
func BenchmarkStoreTurns(b *testing.B) {
	b.Run(backendName(), func(b *testing.B) {
		w := benchWriter(b)
		info := newInfo()
		b.ResetTimer()
		for i := range b.N {
			if _, _, err := w.rec.Append(info, question(fmt.Sprint("q", i)), i); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
	})
}

// BenchmarkFollowLag is the time from a turn saved through one store (a
// replica, A) to another store on the same database (B) holding it: B's
// watch woken (SQLite: its data_version poll, every FollowEvery; Postgres:
// LISTEN/NOTIFY) and the turn read with Since, as serve's follow does.
func BenchmarkFollowLag(b *testing.B) {
	b.Run(backendName(), func(b *testing.B) {
		a := benchWriter(b)
		loc := a.loc
		other, err := Open(loc)
		if err != nil {
			b.Fatal(err)
		}
		defer other.Close()
		reader := other.Record()
		changed, stop := other.Watch()
		defer stop()
		info := newInfo()
		turn := warmUp(b, a.writer, info, changed)
		ctx := context.Background()
		var lag time.Duration
		b.ResetTimer()
		for i := range b.N {
			for len(changed) > 0 {
				<-changed
			}
			start := time.Now()
			en, _, err := a.rec.Append(info, question(fmt.Sprint("q", i)), turn)
			if err != nil {
				b.Fatal(err)
			}
			turn = en.Turn
			// The wake, then the read: what B's follow does.
			deadline := time.NewTimer(30 * time.Second)
			for got := []transcript.Entry(nil); len(got) == 0; {
				select {
				case <-changed:
				case <-deadline.C:
					b.Fatalf("turn %d never reached the other store", en.Turn)
				}
				if got, err = reader.Since(ctx, info.ID, en.Turn); err != nil {
					b.Fatal(err)
				}
			}
			deadline.Stop()
			lag += time.Since(start)
		}
		b.ReportMetric(float64(lag.Microseconds())/1000/float64(b.N), "lag-ms")
	})
}

// warmUp saves turns through w until the watch wakes for one (its first
// read of the database may come after the first commits), and returns
// the last turn saved.
func warmUp(b *testing.B, w *writer, info debate.SessionInfo, changed <-chan struct{}) int {
	b.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for turn := 0; ; {
		en, _, err := w.rec.Append(info, question("warm-up"), turn)
		if err != nil {
			b.Fatal(err)
		}
		turn = en.Turn
		select {
		case <-changed:
			return turn
		case <-time.After(2 * FollowEvery):
		case <-deadline.C:
			b.Fatal("the watch never woke")
		}
	}
}

// benchWriter is a writer on a fresh database for a benchmark.
type benchW struct {
	*writer
	loc string
}

func benchWriter(b *testing.B) benchW {
	b.Helper()
	loc := testDB(b)
	st, err := Open(loc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	return benchW{writer: &writer{st: st, rec: st.Record()}, loc: loc}
}
