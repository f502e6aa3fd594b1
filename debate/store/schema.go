package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations bring a database from version i to i+1 (migrations[i]). Never
// edit a released step: add a new one. Version 1 is the TalkTable design as
// it was (so a TalkTable database is adopted as it stands); version 2 adds
// what Parley records beyond it; version 3 stores display names in its
// participant columns.
var migrations = []string{
	// 1: TalkTable's two tables.
	`CREATE TABLE IF NOT EXISTS conversation_meta (
		conversation_id     TEXT PRIMARY KEY,
		topic               TEXT NOT NULL DEFAULT '',
		participant_a_name  TEXT NOT NULL DEFAULT '',
		participant_a_model TEXT NOT NULL DEFAULT '',
		participant_b_name  TEXT NOT NULL DEFAULT '',
		participant_b_model TEXT NOT NULL DEFAULT '',
		moderator_name      TEXT NOT NULL DEFAULT '',
		moderator_model     TEXT NOT NULL DEFAULT '',
		start_time          DATETIME DEFAULT CURRENT_TIMESTAMP
	);
	CREATE TABLE IF NOT EXISTS conversation_log (
		id              INTEGER PRIMARY KEY AUTOINCREMENT,
		conversation_id TEXT NOT NULL,
		turn_number     INTEGER NOT NULL,
		speaker_name    TEXT NOT NULL,
		model_used      TEXT NOT NULL DEFAULT '',
		prompt          TEXT NOT NULL DEFAULT '',
		response        TEXT NOT NULL DEFAULT '',
		is_moderator    BOOLEAN NOT NULL DEFAULT FALSE,
		timestamp       DATETIME DEFAULT CURRENT_TIMESTAMP
	);`,
	// 2: Parley's columns. Rows from a TalkTable database are talks whose
	// turns all completed.
	`ALTER TABLE conversation_meta ADD COLUMN mode TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_meta ADD COLUMN title TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_meta ADD COLUMN state TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_meta ADD COLUMN parent_id TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_meta ADD COLUMN fork_turn INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_meta ADD COLUMN updated_time TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN provider TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN mode TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN kind TEXT NOT NULL DEFAULT 'reply';
	ALTER TABLE conversation_log ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN vote TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN status TEXT NOT NULL DEFAULT 'complete';
	ALTER TABLE conversation_log ADD COLUMN tokens_in INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN tokens_out INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN tokens_cached INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN latency_ms INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN tool_calls TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN error TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN finished_time TEXT NOT NULL DEFAULT '';
	UPDATE conversation_meta SET mode = 'talk', title = topic,
		updated_time = COALESCE(CAST(start_time AS TEXT), '');
	UPDATE conversation_log SET mode = 'talk',
		kind = CASE WHEN is_moderator THEN 'moderator' ELSE 'reply' END,
		display_name = speaker_name;
	CREATE UNIQUE INDEX conversation_log_turn ON conversation_log(conversation_id, turn_number);
	CREATE INDEX conversation_meta_updated ON conversation_meta(updated_time);`,
	// 3: the participant and moderator columns hold display names, as the
	// seed stores them (the agents' keys stay in conversation_log.speaker_name
	// and in the session state); rows written with keys take the display
	// name their agent spoke under.
	`UPDATE conversation_meta SET participant_a_name = COALESCE((SELECT l.display_name FROM conversation_log l
		WHERE l.conversation_id = conversation_meta.conversation_id AND l.speaker_name = conversation_meta.participant_a_name
		AND l.display_name <> '' ORDER BY l.turn_number LIMIT 1), participant_a_name);
	UPDATE conversation_meta SET participant_b_name = COALESCE((SELECT l.display_name FROM conversation_log l
		WHERE l.conversation_id = conversation_meta.conversation_id AND l.speaker_name = conversation_meta.participant_b_name
		AND l.display_name <> '' ORDER BY l.turn_number LIMIT 1), participant_b_name);
	UPDATE conversation_meta SET moderator_name = COALESCE((SELECT l.display_name FROM conversation_log l
		WHERE l.conversation_id = conversation_meta.conversation_id AND l.speaker_name = conversation_meta.moderator_name
		AND l.display_name <> '' ORDER BY l.turn_number LIMIT 1), moderator_name);`,
	// 4: the usage details of issue 12: cache writes and reasoning tokens,
	// and whether the model had a price (its cost shows ? otherwise).
	`ALTER TABLE conversation_log ADD COLUMN tokens_cache_write INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN tokens_reasoning INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN price_unknown INTEGER NOT NULL DEFAULT 0;`,
	// 5: summaries (kind 'summary') record the last turn they condense.
	// A resume finds the newest summaries and host message by kind.
	`ALTER TABLE conversation_log ADD COLUMN covers INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX conversation_log_kind ON conversation_log(conversation_id, kind, turn_number);`,
	// 6: parley bench runs and their per-question results, so an
	// interrupted run goes on where it stopped.
	`CREATE TABLE bench_run (
		run_id       TEXT PRIMARY KEY,
		created_time TEXT NOT NULL,
		params       TEXT NOT NULL
	);
	CREATE TABLE bench_result (
		run_id       TEXT NOT NULL REFERENCES bench_run(run_id) ON DELETE CASCADE,
		question_id  TEXT NOT NULL,
		seq          INTEGER NOT NULL,
		result       TEXT NOT NULL,
		created_time TEXT NOT NULL,
		PRIMARY KEY (run_id, question_id)
	);`,
	// 7: what parley serve keeps beside the sessions: who owns a session
	// (and which is a user's seed-001 alternate debate), custom agents, and
	// webhook deliveries.
	`CREATE TABLE session_owner (
		conversation_id TEXT PRIMARY KEY,
		user_id         TEXT NOT NULL DEFAULT '',
		seed            INTEGER NOT NULL DEFAULT 0,
		created         TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX session_owner_user ON session_owner(user_id, seed, created);
	CREATE TABLE custom_agent (
		name     TEXT PRIMARY KEY,
		display  TEXT NOT NULL DEFAULT '',
		persona  TEXT NOT NULL DEFAULT '',
		provider TEXT NOT NULL DEFAULT '',
		model    TEXT NOT NULL DEFAULT '',
		color    TEXT NOT NULL DEFAULT '',
		created  TEXT NOT NULL DEFAULT ''
	);
	CREATE TABLE webhook_delivery (
		id          INTEGER PRIMARY KEY AUTOINCREMENT,
		url         TEXT NOT NULL,
		event       TEXT NOT NULL,
		session_id  TEXT NOT NULL DEFAULT '',
		attempts    INTEGER NOT NULL DEFAULT 0,
		status      INTEGER NOT NULL DEFAULT 0,
		delivered   INTEGER NOT NULL DEFAULT 0,
		error       TEXT NOT NULL DEFAULT '',
		time        TEXT NOT NULL DEFAULT ''
	);`,
	// 8: sessions shared by several processes (issue 29). Each row names
	// the door it came through (origin) and the writer that created it,
	// the only one that ever updates it; session_lease is who is running
	// an exchange in a session, until its heartbeat lapses.
	`ALTER TABLE conversation_log ADD COLUMN origin TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversation_log ADD COLUMN writer TEXT NOT NULL DEFAULT '';
	CREATE TABLE session_lease (
		conversation_id TEXT PRIMARY KEY,
		owner           TEXT NOT NULL,
		door            TEXT NOT NULL DEFAULT '',
		pid             INTEGER NOT NULL DEFAULT 0,
		host            TEXT NOT NULL DEFAULT '',
		since           TEXT NOT NULL,
		heartbeat       TEXT NOT NULL,
		expires         TEXT NOT NULL
	);`,
	// 9: issue 30: usage Parley counted itself (the provider's figures
	// never came: a cut or cancelled stream) and the warning of a call
	// that cost more than its worst case.
	`ALTER TABLE conversation_log ADD COLUMN usage_estimated INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversation_log ADD COLUMN warning TEXT NOT NULL DEFAULT '';`,
	// 10: issue 42: a lease's generation, one more at every take, so a
	// holder's writes are fenced by the lease it took (journal_fence.go).
	// A given-back lease keeps its row (owner '') so the count goes on.
	`ALTER TABLE session_lease ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;`,
	// 11: issue 45: the evidence record of a native tool call (JSON of
	// []evidence.Record, '' for none).
	`ALTER TABLE conversation_log ADD COLUMN evidence TEXT NOT NULL DEFAULT '';`,
	// 12: issue 49: parley serve's spend windows, kept in the database so
	// every process serving it shares them (spendledger.go): what a
	// window (the server's, or one user's; one setting; one hour or day)
	// spent and holds for calls in flight.
	`CREATE TABLE spend_window (
		server       INTEGER NOT NULL,
		user_id      TEXT NOT NULL,
		setting      TEXT NOT NULL,
		window_start TEXT NOT NULL,
		spent        REAL NOT NULL DEFAULT 0,
		reserved     REAL NOT NULL DEFAULT 0,
		PRIMARY KEY (server, user_id, setting, window_start)
	);
	CREATE INDEX spend_window_start ON spend_window(window_start);`,
	// 13: issue 50: the sessions updated since a time (Touched, which
	// parley serve reads after every commit it is woken by) read from the
	// index alone, without a lookup of each session's row.
	`CREATE INDEX conversation_meta_touched ON conversation_meta(updated_time, conversation_id);
	DROP INDEX conversation_meta_updated;`,
}

// ErrNewerSchema refuses a database a newer Parley wrote.
var ErrNewerSchema = errors.New("schema too new")

// SchemaVersion is the version this binary writes.
var SchemaVersion = len(migrations)

// migrate applies the missing steps, each in its own transaction, and
// refuses a database written by a newer Parley (its columns may mean more
// than this binary knows).
func migrate(ctx context.Context, db *sql.DB) error {
	// A database already at this version (every open but a binary's
	// first) is read, not locked: versions only go up, and the write
	// transaction below would make processes opening at once wait in turn.
	if v, err := schemaVersion(ctx, db); err == nil && v == len(migrations) {
		return nil
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	return migrateTo(ctx, db, migrations, len(migrations))
}

// migrateTo applies steps (SQLite's migrations, or Postgres's files) until
// the database is at version target.
func migrateTo(ctx context.Context, db *sql.DB, steps []string, target int) error {
	for {
		done, err := migrateStep(ctx, db, steps, target)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep applies one step; the version is read inside the write
// transaction so two processes opening the same file cannot both apply it.
func migrateStep(ctx context.Context, db *sql.DB, steps []string, target int) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var version int
	switch err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version); err {
	case nil:
	case sql.ErrNoRows:
		if _, err = tx.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (0)`); err != nil {
			return false, err
		}
	default:
		return false, err
	}
	if version > len(steps) {
		return false, fmt.Errorf("%w: the database has schema version %d, newer than this parley knows (%d): upgrade parley", ErrNewerSchema, version, len(steps))
	}
	if version >= target {
		return true, tx.Rollback()
	}
	if _, err = tx.ExecContext(ctx, steps[version]); err != nil {
		return false, fmt.Errorf("migration to schema version %d: %w", version+1, err)
	}
	if _, err = tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, version+1); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

// schemaVersion reads the stored version (for tests and diagnostics).
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	return v, err
}
