package store

import (
	"context"
	"errors"
	"testing"
)

func TestBenchRunsAndResultsAreStoredOnce(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	if err := st.CreateBenchRun(ctx, "abc123def456", []byte(`{"set":"builtin:arith"}`)); err != nil {
		t.Fatal(err)
	}
	id, params, err := st.BenchRun(ctx, "abc1")
	if err != nil || id != "abc123def456" || string(params) != `{"set":"builtin:arith"}` {
		t.Fatalf("BenchRun = %q %s %v", id, params, err)
	}
	if _, _, err := st.BenchRun(ctx, "ffff"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown run: %v", err)
	}
	for _, r := range []struct {
		id  string
		seq int
	}{{"q3", 3}, {"q1", 1}} {
		if err := st.SaveBenchResult(ctx, id, r.id, r.seq, []byte(`{"id":"`+r.id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SaveBenchResult(ctx, id, "q1", 1, []byte(`{}`)); err == nil {
		t.Error("a finished question was stored twice")
	}
	rows, err := st.BenchResults(ctx, id)
	if err != nil || len(rows) != 2 || rows[0].QuestionID != "q1" || rows[1].QuestionID != "q3" || string(rows[1].Result) != `{"id":"q3"}` {
		t.Errorf("BenchResults = %+v, %v", rows, err)
	}
}

func TestBenchRunsListNewestFirstWithTheirProgress(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	if runs, err := st.BenchRuns(ctx, 0); err != nil || len(runs) != 0 {
		t.Fatalf("empty database: %+v %v", runs, err)
	}
	for _, id := range []string{"aaa", "bbb"} {
		if err := st.CreateBenchRun(ctx, id, []byte(`{"set":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	// Both created within the same clock tick: the order falls to the ID.
	if _, err := st.w.ExecContext(ctx, `UPDATE bench_run SET created_time = '2026-01-01T00:00:00Z' WHERE run_id = 'aaa'`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"q1", "q2"} {
		if err := st.SaveBenchResult(ctx, "aaa", q, 1, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := st.BenchRuns(ctx, 0)
	if err != nil || len(runs) != 2 || runs[0].ID != "bbb" || runs[0].Done != 0 || runs[1].ID != "aaa" || runs[1].Done != 2 ||
		string(runs[1].Params) != `{"set":"aaa"}` || runs[1].Created.Year() != 2026 {
		t.Fatalf("BenchRuns = %+v, %v", runs, err)
	}
	if runs, err := st.BenchRuns(ctx, 1); err != nil || len(runs) != 1 || runs[0].ID != "bbb" {
		t.Errorf("limit 1: %+v %v", runs, err)
	}
}
