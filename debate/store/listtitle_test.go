package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// A session saved with neither title nor topic (before titles) is listed
// under its first line typed; one with a title, under its title (List
// reads the first line only for the former).
func TestListTitlesAnUntitledSessionByItsFirstLine(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	st, err := Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, info := range []debate.SessionInfo{
		{ID: "000000000001", Mode: "mention", Created: time.Now()},
		{ID: "000000000002", Mode: "mention", Title: "a title of its own", Created: time.Now()},
	} {
		rec := st.RecordEvery(time.Hour)
		rec.Sink(debate.SessionStarted{Session: info})
		rec.Sink(debate.EntryAdded{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindUser, Speaker: "you", Text: "what is a monad?", Status: transcript.StatusComplete}})
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
	list, err := st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, s := range list {
		titles[s.ID] = s.Title
	}
	if got, want := titles["000000000001"], debate.TitleFor("mention", "what is a monad?"); got != want {
		t.Errorf("untitled session listed as %q, want %q", got, want)
	}
	if got := titles["000000000002"]; got != "a title of its own" {
		t.Errorf("titled session listed as %q", got)
	}
}
