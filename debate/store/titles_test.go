package store

import (
	"context"
	"errors"
	"testing"
)

// A session is titled "MODE · question", the question stays whole in the
// log, and both renames (the console's through the engine's event, the
// CLI's through the store) reach the database without moving the session
// in the list.
func TestTitleFromQuestionAndRename(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	e := testEngine(t, 0)
	rec := st.Record()
	e.Subscribe(rec.Sink)
	e.Start(false)
	question := "@all should we migrate the billing service from RabbitMQ to Kafka before the freeze?"
	if err := e.Submit(ctx, question); err != nil {
		t.Fatal(err)
	}
	settle(t, e)
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	id := e.Info().ID
	info, entries, err := st.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Title != "mention · @all should we migrate the billing service from RabbitMQ to…" {
		t.Fatalf("title %q", info.Title)
	}
	if entries[0].Text != question {
		t.Fatalf("first turn %q, want the whole question", entries[0].Text)
	}

	if err := e.Rename("billing queue"); err != nil {
		t.Fatal(err)
	}
	settle(t, e)
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if info, _, _ = st.Load(ctx, id); info.Title != "billing queue" {
		t.Fatalf("after the engine's rename: %q", info.Title)
	}

	before, _ := st.List(ctx)
	if err := st.Rename(ctx, id, "  Kafka  or NATS "); err != nil {
		t.Fatal(err)
	}
	after, _ := st.List(ctx)
	if len(after) != 1 || after[0].Title != "Kafka or NATS" || !after[0].LastActivity.Equal(before[0].LastActivity) {
		t.Fatalf("after the store's rename: %+v (before %+v)", after, before)
	}
	if err := st.Rename(ctx, id, " "); err == nil {
		t.Fatal("a blank title was saved")
	}
	if err := st.Rename(ctx, "nosuchsession", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rename of a missing session: %v", err)
	}
}
