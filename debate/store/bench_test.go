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
