package headless

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/sessions_hostile.golden")

// hostileSessions are rows an attacker (or an old, damaged version) could
// leave in a database: escape sequences, C1 controls, bidi overrides,
// invalid UTF-8, wide characters, the packing's separator '|', a title
// that is only a first line typed, costs and counts out of range.
const hostileSessions = `
INSERT INTO conversation_meta (conversation_id, mode, title, topic, state, start_time, updated_time, parent_id, fork_turn) VALUES
 ('a1', 'mention', 'plain · café — “quoted” …', '', '', '2026-11-28T11:00:00Z', '2026-11-28T11:50:00Z', '', 0),
 ('a2', 'magi', 'red ` + "\x1b[31m" + `alert` + "\x1b[0m" + ` and ` + "\x1b]8;;http://evil\x07" + `link` + "\x1b]8;;\x07" + `', 'the topic', '', '2026-11-28T10:00:00Z', '2026-11-28T11:40:00Z', 'a1', 3),
 ('a3', 'talk', 'C1 ` + "\u009b" + `31m and bidi ` + "\u202e" + `txet` + "\u2066" + ` | pipes || here', '', '', '2026-11-28T09:00:00Z', '2026-11-28T11:30:00Z', '', 0),
 ('a4', 'council', '', 'topic only: 東京 と 大阪 の 比較', '', '2026-11-28T08:00:00Z', '2026-11-28T09:00:00Z', '', 0),
 ('a5', 'mention', '', '', '', '2026-11-28T07:00:00Z', '2026-11-28T08:00:00Z', '', 0),
 ('a6', 'mention', CAST(X'696e76616c6964ff20757466fe38' AS TEXT), '', '', '2026-11-28|07:00:00Z', 'not|a|time', '', 0),
 ('a7|x', 'mention', 'long ' || replace(hex(zeroblob(60)), '00', 'word '), '', '', NULL, '', 'a7|parent', 2);
INSERT INTO conversation_log (conversation_id, turn_number, speaker_name, kind, response, tokens_in, tokens_out, cost_usd, price_unknown, usage_estimated) VALUES
 ('a1', 1, 'user', 'user', 'hi', 0, 0, 0, 0, 0),
 ('a1', 2, 'chatgpt', 'reply', 'hello', 1200, 3400, 0.0123, 0, 0),
 ('a2', 1, 'claude` + "\x1b[2J" + `', 'reply', 'x', 5, 6, 0.5, 0, 1),
 ('a2', 2, 'gemini', 'vote', 'y', -7, 9, 9e999, 0, 0),
 ('a3', 1, 'chatgpt', 'reply', 'z', 1, 1, 0.001, 1, 0),
 ('a5', 1, 'user', 'user', '  ` + "\x1b[31m" + `typed first line` + "\u202e" + ` with a | pipe', 0, 0, 0, 0, 0),
 ('a5', 2, 'chatgpt', 'moderator', 'ok', 10, 20, 1e-9, 0, 0);
`

// TestSessionListOfHostileRowsIsAsBefore: the session list of a database
// of hostile rows, as a table (cut to 100 cells and --wide) and as JSON,
// is byte for byte what it was before List read its figures packed in
// one column and Text took its fast path for non-ASCII titles (the golden
// file was written by the code of main at 2026-11-28 23:45, before issue
// 50's fourth round): every escape is still stripped, every figure the same.
func TestSessionListOfHostileRowsIsAsBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(hostileSessions); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if st, err = store.OpenReadOnly(path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 7 {
		t.Fatalf("%d sessions, want 7", len(list))
	}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var got bytes.Buffer
	for _, wide := range []bool{false, true} {
		if err := SessionList(&got, list, now, 100, wide); err != nil {
			t.Fatal(err)
		}
	}
	js, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got.Write(js)
	golden := filepath.Join("testdata", "sessions_hostile.golden")
	if *updateGolden {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the session list changed:\n%s\nwant:\n%s", got.Bytes(), want)
	}
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\u2066", "\xff"} {
		if bytes.Contains(got.Bytes()[:got.Len()-len(js)], []byte(bad)) {
			t.Errorf("%q reached the table", bad)
		}
	}
}
