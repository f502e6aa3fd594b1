package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// BenchRow is one stored question result of a bench run.
type BenchRow struct {
	QuestionID string
	Seq        int
	Result     []byte // the bench's JSON
}

// CreateBenchRun records a new bench run with its parameters (JSON).
func (s *Store) CreateBenchRun(ctx context.Context, id string, params []byte) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO bench_run(run_id, created_time, params) VALUES (?, ?, ?)`,
		id, formatTime(time.Now()), string(params))
	return err
}

// BenchRun finds a run by its ID or a unique prefix and returns its full
// ID and parameters.
func (s *Store) BenchRun(ctx context.Context, prefix string) (id string, params []byte, err error) {
	rows, err := s.r.QueryContext(ctx, `SELECT run_id, params FROM bench_run WHERE run_id >= ? AND run_id < ? ORDER BY run_id LIMIT 2`,
		prefix, prefix+"\uffff")
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	var ids []string
	var ps []string
	for rows.Next() {
		var i, p string
		if err := rows.Scan(&i, &p); err != nil {
			return "", nil, err
		}
		ids, ps = append(ids, i), append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return "", nil, err
	}
	switch {
	case prefix == "" || len(ids) == 0:
		return "", nil, fmt.Errorf("no bench run %q in this database: %w", prefix, ErrNotFound)
	case len(ids) > 1 && ids[0] != prefix:
		return "", nil, &AmbiguousError{Prefix: prefix, Matches: ids}
	}
	return ids[0], []byte(ps[0]), nil
}

// SaveBenchResult stores a finished question once; storing it again is an
// error (a resumed run must not repeat a finished question).
func (s *Store) SaveBenchResult(ctx context.Context, run, questionID string, seq int, result []byte) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO bench_result(run_id, question_id, seq, result, created_time) VALUES (?, ?, ?, ?, ?)`,
		run, questionID, seq, string(result), formatTime(time.Now()))
	return err
}

// BenchResults lists a run's stored results in set order.
func (s *Store) BenchResults(ctx context.Context, run string) ([]BenchRow, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT question_id, seq, result FROM bench_result WHERE run_id = ? ORDER BY seq`, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BenchRow
	for rows.Next() {
		var r BenchRow
		var body string
		if err := rows.Scan(&r.QuestionID, &r.Seq, &body); err != nil {
			return nil, err
		}
		r.Result = []byte(body)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	return out, nil
}

// BenchRunRow is one stored bench run as listed: its parameters and how
// many questions it has finished.
type BenchRunRow struct {
	ID      string
	Created time.Time
	Params  []byte // the bench's JSON
	Done    int
}

// BenchRuns lists the stored runs, newest first, at most limit (0: all).
func (s *Store) BenchRuns(ctx context.Context, limit int) ([]BenchRunRow, error) {
	q := `SELECT r.run_id, r.created_time, r.params, (SELECT COUNT(*) FROM bench_result b WHERE b.run_id = r.run_id)
		FROM bench_run r ORDER BY r.created_time DESC, r.run_id`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.r.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BenchRunRow
	for rows.Next() {
		var r BenchRunRow
		var created, params string
		if err := rows.Scan(&r.ID, &created, &params, &r.Done); err != nil {
			return nil, err
		}
		r.Created = parseTime(created)
		r.Params = []byte(params)
		out = append(out, r)
	}
	return out, rows.Err()
}
