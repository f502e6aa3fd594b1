package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
)

// dbPath is the session database: --db, then PARLEY_DB, then
// $XDG_DATA_HOME/parley/parley.db (~/.local/share/parley/parley.db).
func dbPath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	return store.DefaultPath(os.Getenv)
}

// openStore opens the session database, restores the session asked for
// (--resume ID, --continue, --session ID) before anything is announced,
// subscribes the recorder and starts the session. Every exchange is then
// saved as it happens.
func (a *app) openStore() error {
	g := a.flags
	if g.noPersist {
		a.engine.Start(false)
		return nil
	}
	path, err := dbPath(g.db)
	if err != nil {
		return err
	}
	st, err := store.Open(path)
	if err != nil {
		return fmt.Errorf("session database: %w", err)
	}
	a.store = st
	a.closers = append(a.closers, func() error {
		if err := st.Close(); err != nil {
			fmt.Fprintln(a.stderr, "parley: saving the session:", err)
			return err
		}
		return nil
	})
	ctx := context.Background()
	id, err := requestedSession(ctx, st, g)
	if err != nil {
		return err
	}
	if id != "" {
		info, entries, err := st.Load(ctx, id)
		if err != nil {
			return err
		}
		if err := a.engine.Restore(info, entries); err != nil {
			return usageErr(fmt.Errorf("session %s: %w", id, err))
		}
	}
	rec := st.Record()
	var once sync.Once
	rec.OnError(func(err error) {
		once.Do(func() { fmt.Fprintln(a.stderr, "parley: saving the session failed:", err) })
	})
	a.engine.Subscribe(rec.Sink)
	a.engine.Start(id != "")
	if id != "" && g.mode != "" && g.mode != a.engine.Info().Mode {
		if err := a.engine.SetMode(g.mode); err != nil {
			return usageErr(err)
		}
	}
	return nil
}

// requestedSession resolves --resume, --session and --continue to a full
// session ID ("" for a new session).
func requestedSession(ctx context.Context, st *store.Store, g *globalFlags) (string, error) {
	ref, flag := g.resume, "--resume"
	if g.session != "" {
		if ref != "" {
			return "", usageErr(errors.New("--resume and --session both name a session: give one"))
		}
		ref, flag = g.session, "--session"
	}
	switch {
	case ref != "" && g.cont:
		return "", usageErr(fmt.Errorf("%s and --continue both choose a session: give one", flag))
	case g.cont:
		id, err := st.Latest(ctx)
		if errors.Is(err, store.ErrNotFound) {
			return "", usageErr(errors.New("--continue: no saved session yet"))
		}
		return id, err
	case ref != "":
		id, err := st.Resolve(ctx, ref)
		return id, sessionRefErr(flag, err)
	}
	return "", nil
}

// sessionRefErr makes a bad session reference a usage error (exit 2) that
// says how to find the right one.
func sessionRefErr(flag string, err error) error {
	var amb *store.AmbiguousError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound), errors.As(err, &amb):
		return usageErr(fmt.Errorf("%s: %w (see parley sessions list)", flag, err))
	}
	return err
}

// consoleStore adapts the store to the console's session list (the
// tui.Sessions interface): the console never sees SQL.
type consoleStore struct {
	st  *store.Store
	dir string // where Export writes its files
}

// sessionStore returns the console's view of the store, nil when sessions
// are not persisted (return nil explicitly to the console then: a nil
// *consoleStore in an interface is not a nil interface).
func (a *app) sessionStore() *consoleStore {
	if a.store == nil {
		return nil
	}
	return &consoleStore{st: a.store, dir: "."}
}

func (c *consoleStore) List() ([]debate.SessionInfo, error) {
	list, err := c.st.List(context.Background())
	out := make([]debate.SessionInfo, len(list))
	for i, s := range list {
		out[i] = debate.SessionInfo{ID: s.ID, Title: s.Title, Mode: s.Mode, Topic: s.Topic, Created: s.Created, Parent: s.Parent, ForkAt: s.ForkAt}
	}
	return out, err
}

func (c *consoleStore) Load(id string) (debate.SessionInfo, []debate.Entry, error) {
	return c.st.Load(context.Background(), id)
}

func (c *consoleStore) Delete(id string) error { return c.st.Delete(context.Background(), id) }

// Fork copies id up to atTurn (0: all of it) into a new session.
func (c *consoleStore) Fork(id string, atTurn int) (debate.SessionInfo, []debate.Entry, error) {
	ctx := context.Background()
	if atTurn == 0 {
		_, entries, err := c.st.Load(ctx, id)
		if err != nil {
			return debate.SessionInfo{}, nil, err
		}
		atTurn = len(entries)
	}
	fork, err := c.st.Fork(ctx, id, atTurn)
	if err != nil {
		return debate.SessionInfo{}, nil, err
	}
	return c.st.Load(ctx, fork.ID)
}

// Export writes parley-ID.md or parley-ID.json and returns its path.
func (c *consoleStore) Export(id, format string) (string, error) {
	ext := format
	if ext == "markdown" {
		ext = "md"
	}
	path, err := filepath.Abs(filepath.Join(c.dir, "parley-"+id+"."+ext))
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	if err := c.st.Export(context.Background(), f, id, format); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}
