package store

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/transcript"
)

func exportOf(t testing.TB, st *Store, id string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := st.Export(context.Background(), &b, id, "session"); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Import is the exact inverse of the JSON export: exporting an imported
// session gives the file back byte for byte, on another machine's database.
func TestImportRoundTrip(t *testing.T) {
	t.Parallel()
	original := exportOf(t, storeGolden(t), "0123456789ab")
	info, entries, err := ReadJSON(bytes.NewReader(original))
	if err != nil {
		t.Fatal(err)
	}
	other := openTemp(t)
	if _, err := other.Import(context.Background(), info, entries, false); err != nil {
		t.Fatal(err)
	}
	if again := exportOf(t, other, "0123456789ab"); !bytes.Equal(again, original) {
		t.Fatalf("round trip changed the export:\n--- got\n%s\n--- want\n%s", again, original)
	}
	// The same file again is refused (the ID is taken), or kept beside the
	// original under a new ID.
	if _, err := other.Import(context.Background(), info, entries, false); !errors.Is(err, ErrExists) {
		t.Fatalf("second import: %v", err)
	}
	copied, err := other.Import(context.Background(), info, entries, true)
	if err != nil || copied.ID == info.ID {
		t.Fatalf("import as new: %+v %v", copied, err)
	}
	_, back, err := other.Load(context.Background(), copied.ID)
	if err != nil || len(back) != len(entries) || back[10].Covers != 3 || back[10].Kind != transcript.KindSummary {
		t.Fatalf("copy: %d entries %v", len(back), err)
	}
}

// Bad files are refused with a clear error, and nothing is written.
func TestImportRefusesBadFiles(t *testing.T) {
	t.Parallel()
	original := string(exportOf(t, storeGolden(t), "0123456789ab"))
	cases := map[string]struct{ file, want string }{
		"newer":       {strings.Replace(original, `"format_version": 1`, `"format_version": 2`, 1), "newer than this parley reads"},
		"not json":    {"conversation_id: x", "not a Parley JSON export"},
		"truncated":   {original[:len(original)/2], "not a Parley JSON export"},
		"unknown key": {strings.Replace(original, `"title":`, `"flavour": "x", "title":`, 1), `unknown field "flavour"`},
		"turn gap":    {strings.Replace(original, `"turn": 2,`, `"turn": 3,`, 1), "turn 3, want 2"},
		"kind":        {strings.Replace(original, `"kind": "note"`, `"kind": "gossip"`, 1), `unknown kind "gossip"`},
		"streaming":   {strings.Replace(original, `"status": "partial"`, `"status": "streaming"`, 1), "not a finished turn's"},
		"no id":       {strings.Replace(original, `"conversation_id": "0123456789ab"`, `"conversation_id": ""`, 1), "conversation_id is missing"},
		"escape id":   {strings.Replace(original, `"conversation_id": "0123456789ab"`, `"conversation_id": "a\u001b[2Jb"`, 1), "is not a session ID"},
		"covers":      {strings.Replace(original, `"covers": 3`, `"covers": 30`, 1), "covers 30 does not fit"},
		"trailing":    {original + `{"more": 1}`, "not a Parley JSON export"},
		"mode":        {strings.Replace(original, `"mode": "`, `"mode": "\u001b[2J`, 1), "is not a mode's name"},
	}
	for name, c := range cases {
		_, _, err := ReadJSON(strings.NewReader(c.file))
		var ie *ImportError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
}

// A failure half way through the writes leaves the database as it was.
func TestImportIsTransactional(t *testing.T) {
	t.Parallel()
	info, entries, err := ReadJSON(bytes.NewReader(exportOf(t, storeGolden(t), "0123456789ab")))
	if err != nil {
		t.Fatal(err)
	}
	st := openTemp(t)
	trigger := `CREATE TRIGGER fail_turn_6 BEFORE INSERT ON conversation_log
		WHEN NEW.turn_number = 6 BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`
	if st.IsPostgres() {
		trigger = `CREATE FUNCTION fail_turn() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'disk on fire'; END $$;
			CREATE TRIGGER fail_turn_6 BEFORE INSERT ON conversation_log
			FOR EACH ROW WHEN (NEW.turn_number = 6) EXECUTE FUNCTION fail_turn();`
	}
	if _, err := st.w.Exec(trigger); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Import(context.Background(), info, entries, false); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("import: %v", err)
	}
	var meta, rows int
	if err := st.r.QueryRow(`SELECT (SELECT COUNT(*) FROM conversation_meta), (SELECT COUNT(*) FROM conversation_log)`).Scan(&meta, &rows); err != nil {
		t.Fatal(err)
	}
	if meta != 0 || rows != 0 {
		t.Fatalf("a failed import left %d sessions and %d turns", meta, rows)
	}
}

// Whatever the file holds, ReadJSON returns a session or an error, and a
// session it accepts exports to a file it reads back the same.
func FuzzReadJSON(f *testing.F) {
	info, entries := goldenSession()
	var golden bytes.Buffer
	if err := WriteJSON(&golden, info, entries); err != nil {
		f.Fatal(err)
	}
	f.Add(golden.Bytes())
	f.Add([]byte(`{"format_version":1,"conversation_id":"x","messages":[]}`))
	f.Add([]byte(`{"conversation_id":"x","messages":[{"turn":1,"kind":"summary","covers":0,"status":"complete"}]}`))
	f.Add([]byte(`{"format_version":99}`))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(`{"conversation_id":"x","created":"9999-12-31T23:59:59-01:00","messages":[]}`))
	f.Add([]byte(`{"conversation_id":"x","messages":[{"turn":1,"kind":"note","status":"complete","timestamp":"9999-12-31T23:59:59Z","latency_ms":999999999}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, entries, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		var once bytes.Buffer
		if err := WriteJSON(&once, info, entries); err != nil {
			t.Fatal(err)
		}
		info2, entries2, err := ReadJSON(bytes.NewReader(once.Bytes()))
		if err != nil {
			t.Fatalf("an accepted session's export is refused: %v", err)
		}
		var twice bytes.Buffer
		if err := WriteJSON(&twice, info2, entries2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("export → import → export is not stable:\n%s\n%s", once.Bytes(), twice.Bytes())
		}
	})
}

// An agent session's json export is the seed's agent conversation, which
// import refuses with the way out; its session export round-trips.
func TestImportAgentSession(t *testing.T) {
	t.Parallel()
	info, entries := goldenSession()
	info.Mode = "agent"
	st := openTemp(t)
	if _, err := st.Import(context.Background(), info, entries, false); err != nil {
		t.Fatal(err)
	}
	var seedShape, whole bytes.Buffer
	if err := st.Export(context.Background(), &seedShape, info.ID, "json"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadJSON(&seedShape); err == nil || !strings.Contains(err.Error(), "--format session") {
		t.Fatalf("agent conversation import: %v", err)
	}
	if err := st.Export(context.Background(), &whole, info.ID, "session"); err != nil {
		t.Fatal(err)
	}
	info2, entries2, err := ReadJSON(bytes.NewReader(whole.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	other := openTemp(t)
	if _, err := other.Import(context.Background(), info2, entries2, false); err != nil {
		t.Fatal(err)
	}
	if again := exportOf(t, other, info.ID); !bytes.Equal(again, whole.Bytes()) {
		t.Fatal("an agent session's session export does not round-trip")
	}
}
