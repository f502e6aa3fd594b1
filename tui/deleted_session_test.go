package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/store"
)

// Break 6 of issue 42: the console has a session open, another process
// deletes it (parley sessions rm), and the next question must not
// re-create it. The console says the session was deleted, keeps what was
// typed, and /saveas keeps the conversation as a new session, where the
// next question is saved.
func TestDeletedSessionIsOfferedAsANewOne(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "parley.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := testEngine(t, 0)
	st.Record().Attach(e, "console")
	e.Start(false)
	ctx := context.Background()
	opts := testOptions(e)
	opts.Sessions = store.NewBrowser(st, t.TempDir())
	m := New(opts)
	tm := start(t, m, 120, 40)
	typeLine(tm, "@claude first question")
	waitFor(t, tm, "the first answer", func(m *Model) bool { return idle(m) && m.tr.Len() >= 2 })
	id := e.Info().ID

	other, err := store.Open(path) // another shell: parley sessions rm
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	typeLine(tm, "@claude second question")
	waitFor(t, tm, "the deletion said", func(m *Model) bool {
		return idle(m) && strings.Contains(m.status, "was deleted by another process") && strings.Contains(m.status, "/saveas")
	})
	probe(t, tm, func(m *Model) {
		if got := m.in.Value(); got != "@claude second question" {
			t.Errorf("the typed question was not kept: %q", got)
		}
	})
	if _, _, err := other.Load(ctx, id); err == nil {
		t.Fatal("the deleted session was re-created")
	}

	probe(t, tm, func(m *Model) { m.in.SetValue("") })
	typeLine(tm, "/saveas")
	waitFor(t, tm, "the new session", func(m *Model) bool { return m.info.ID != id && strings.Contains(m.status, "saved as") })
	fresh := e.Info().ID
	typeLine(tm, "@claude third question")
	waitFor(t, tm, "the third answer", func(m *Model) bool { return idle(m) && m.tr.Len() >= 4 })
	_, entries, err := other.Load(ctx, fresh)
	if err != nil {
		t.Fatalf("the conversation was not saved as a new session: %v", err)
	}
	var texts []string
	for _, en := range entries {
		texts = append(texts, en.Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "@claude first question") || !strings.Contains(all, "@claude third question") || strings.Contains(all, "second question") {
		t.Errorf("the new session holds %q, want the first and third questions", all)
	}
	if _, _, err := other.Load(ctx, id); err == nil {
		t.Error("the deleted session came back")
	}
}
