package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

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

// openDB opens the session database the flags and environment name.
func openDB(g *globalFlags) (*store.Store, string, error) {
	path, err := dbPath(g.db)
	if err != nil {
		return nil, "", err
	}
	st, err := store.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("session database: %w", err)
	}
	return st, path, nil
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
	st, path, err := openDB(g)
	if err != nil {
		return err
	}
	a.store, a.dbFile = st, path
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
		// Metadata, summaries and the tail: a long session resumes in the
		// time of a short one; the console pages older turns in.
		info, entries, err := st.LoadRecent(ctx, id)
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

// sessionBrowser returns the console's view of the store (exports go to
// the working directory), nil when sessions are not persisted.
func (a *app) sessionBrowser() *store.Browser {
	if a.store == nil {
		return nil
	}
	return store.NewBrowser(a.store, ".")
}
