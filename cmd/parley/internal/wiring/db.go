package wiring

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/dbplace"
	"github.com/parleyhq/parley/debate/store"
)

// DBPath is the session database: --db, then PARLEY_DB, then the
// configuration's store.url, then $XDG_DATA_HOME/parley/parley.db
// (~/.local/share/parley/parley.db).
func DBPath(h Host, g *Flags) (string, error) {
	place, err := DBPlace(h, g)
	return place.Location, err
}

// DBPlace is DBPath with what named it (config show prints it).
func DBPlace(h Host, g *Flags) (dbplace.Place, error) {
	place, err := dbplace.Find(g.DB, h.Getenv, configStoreURL(h, g))
	place.Location = inDir(h, place.Location)
	return place, err
}

// inDir is a database location seen from the host's working directory: a
// relative file's path joined to Dir, a URL as it is.
func inDir(h Host, location string) string {
	if location == "" || store.IsPostgres(location) || strings.HasPrefix(location, "sqlite:") {
		return location
	}
	return configload.InDir(h.Dir, location)
}

// configStoreURL reads store.url from the configuration the flags name.
func configStoreURL(h Host, g *Flags) dbplace.StoreURL {
	return func() (string, string, error) {
		path, err := configload.Path(h.Dir, g.Config, h.Getenv)
		if err != nil {
			return "", "", cli.Usage(err)
		}
		loaded, err := configload.Load(g.Modes, path, h.Environ())
		if err != nil {
			return "", "", cli.Usage(err)
		}
		return loaded.Config.Store.URL, loaded.SourceOf("store.url").String(), nil
	}
}

// OpenDB opens the session database the flags, environment and
// configuration name.
func OpenDB(h Host, g *Flags) (*store.Store, string, error) {
	return openDBAt(h, g, configStoreURL(h, g))
}

// openDBAt is OpenDB with store.url read by storeURL.
func openDBAt(h Host, g *Flags, storeURL dbplace.StoreURL) (*store.Store, string, error) {
	place, err := dbplace.Find(g.DB, h.Getenv, storeURL)
	if err != nil {
		return nil, "", err
	}
	path := inDir(h, place.Location)
	st, err := store.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("session database: %w", err)
	}
	return st, st.Path(), nil // a Postgres URL without its password
}

// openStore opens the session database, restores the session asked for
// (--resume ID, --continue, --session ID) before anything is announced,
// subscribes the recorder and starts the session. Every exchange is then
// saved as it happens.
func (a *App) openStore(h Host) error {
	g := a.Flags
	if g.NoPersist {
		a.Engine.Start(false)
		return nil
	}
	st, path, err := openDBAt(h, g, func() (string, string, error) { return a.Cfg.Store.URL, "store.url", nil })
	if err != nil {
		return err
	}
	a.Store, a.DBFile = st, path
	a.closers = append(a.closers, func() error {
		if err := st.Close(); err != nil {
			a.saves.fail(a.Stderr, err)
			return err
		}
		return nil
	})
	ctx := context.Background()
	id, err := RequestedSession(ctx, st, g)
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
		if err := a.Engine.Restore(info, entries); err != nil {
			return cli.Usage(fmt.Errorf("session %s: %w", id, err))
		}
		a.Resumed = true
	}
	rec := st.Record()
	rec.OnError(func(err error) { a.saves.fail(a.Stderr, err) })
	rec.WaitForLease(g.Wait)
	rec.Attach(a.Engine, a.Door)
	if a.Door == "console" { // the open console shows what other processes add
		rec.Follow(context.Background(), a.Engine)
	}
	a.Engine.Start(id != "")
	if id != "" && g.Mode != "" && g.Mode != a.Engine.Info().Mode {
		if err := a.Engine.SetMode(g.Mode); err != nil {
			return cli.Usage(err)
		}
	}
	return nil
}

// RequestedSession resolves --resume, --session and --continue to a full
// session ID ("" for a new session).
func RequestedSession(ctx context.Context, st *store.Store, g *Flags) (string, error) {
	ref, flag := g.Resume, "--resume"
	if g.Session != "" {
		if ref != "" {
			return "", cli.Usage(errors.New("--resume and --session both name a session: give one"))
		}
		ref, flag = g.Session, "--session"
	}
	switch {
	case ref != "" && g.Continue:
		return "", cli.Usage(fmt.Errorf("%s and --continue both choose a session: give one", flag))
	case g.Continue:
		id, err := st.Latest(ctx)
		if errors.Is(err, store.ErrNotFound) {
			return "", cli.Usage(errors.New("--continue: no saved session yet"))
		}
		return id, err
	case ref != "":
		id, err := st.Resolve(ctx, ref)
		return id, SessionRefErr(flag, err)
	}
	return "", nil
}

// SessionRefErr makes a bad session reference a usage error (exit 2) that
// says how to find the right one.
func SessionRefErr(flag string, err error) error {
	var amb *store.AmbiguousError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound), errors.As(err, &amb):
		return cli.Usage(fmt.Errorf("%s: %w (see parley sessions list)", flag, err))
	}
	return err
}

// SessionBrowser returns the console's view of the store (exports go to
// the working directory), nil when sessions are not persisted.
func (a *App) SessionBrowser() *store.Browser {
	if a.Store == nil {
		return nil
	}
	return store.NewBrowser(a.Store, cmp.Or(a.dir, "."))
}
