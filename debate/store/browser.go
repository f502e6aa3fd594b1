package store

import (
	"context"
	"os"
	"path/filepath"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sessionid"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Browser is the console's view of the session database (the tui.Sessions
// interface): list, load, delete, fork and export, with no SQL in sight.
type Browser struct {
	st  *Store
	dir string // where Export writes its files
}

// NewBrowser returns a Browser over st that exports into dir.
func NewBrowser(st *Store, dir string) *Browser { return &Browser{st: st, dir: dir} }

// List returns the saved sessions, the most recently active first.
func (c *Browser) List() ([]debate.SessionSummary, error) {
	list, err := c.st.List(context.Background())
	out := make([]debate.SessionSummary, len(list))
	for i, s := range list {
		out[i] = debate.SessionSummary{
			SessionInfo: debate.SessionInfo{ID: s.ID, Title: s.Title, Mode: s.Mode, Topic: s.Topic, Created: s.Created, Parent: s.Parent, ForkAt: s.ForkAt},
			Turns:       s.Turns, Tokens: s.TokensIn + s.TokensOut, Cost: s.Cost, LastActivity: s.LastActivity,
			PriceUnknown: s.PriceUnknown, Estimated: s.Estimated,
		}
	}
	return out, err
}

// Load returns a session as a resume needs it (LoadRecent): the console
// pages older turns in with Page.
func (c *Browser) Load(id string) (debate.SessionInfo, []transcript.Entry, error) {
	return c.st.LoadRecent(context.Background(), id)
}

// Page reads up to limit turns before turn before, oldest first (tui.Pager).
func (c *Browser) Page(id string, before, limit int) ([]transcript.Entry, error) {
	return c.st.Page(context.Background(), id, before, limit)
}

// Totals sums a session's usage and cost over every turn (tui.Pager).
func (c *Browser) Totals(id string) (providers.Usage, float64, error) {
	return c.st.Totals(context.Background(), id)
}

// Delete removes a session.
func (c *Browser) Delete(id string) error { return c.st.Delete(context.Background(), id) }

// Fork copies id up to atTurn (0: all of it) into a new session and loads the copy.
func (c *Browser) Fork(id string, atTurn int) (debate.SessionInfo, []transcript.Entry, error) {
	ctx := context.Background()
	fork, err := c.st.Fork(ctx, id, atTurn)
	if err != nil {
		return debate.SessionInfo{}, nil, err
	}
	return c.st.LoadRecent(ctx, fork.ID)
}

// SaveAs writes a conversation as a new session (a fresh ID, in one
// transaction) and loads it back.
func (c *Browser) SaveAs(info debate.SessionInfo, entries []transcript.Entry) (debate.SessionInfo, []transcript.Entry, error) {
	ctx := context.Background()
	info.Parent, info.ForkAt = "", 0 // its session is gone, or another's now
	saved, err := c.st.Import(ctx, info, entries, true)
	if err != nil {
		return debate.SessionInfo{}, nil, err
	}
	return c.st.LoadRecent(ctx, saved.ID)
}

// Export writes parley-ID.md or parley-ID.json into the browser's folder
// and returns its path.
func (c *Browser) Export(id, format string) (string, error) {
	ext := format
	if ext == "markdown" {
		ext = "md"
	}
	if err := sessionid.Check(id); err != nil {
		return "", err // the ID becomes a file name
	}
	path, err := filepath.Abs(filepath.Join(c.dir, "parley-"+id+"."+ext))
	if err != nil {
		return "", err
	}
	return path, c.st.ExportFile(context.Background(), path, id, format)
}

// ExportFile writes the export of id to path, readable by its owner only;
// a failed export leaves no file behind.
func (s *Store) ExportFile(ctx context.Context, path, id, format string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if err := s.Export(ctx, f, id, format); err != nil {
		f.Close()
		_ = os.Remove(path)
		return err
	}
	return f.Close()
}
