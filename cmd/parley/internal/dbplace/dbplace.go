// Package dbplace finds the session database a command uses and says
// what named it: the --db flag, then PARLEY_DB, then the configuration's
// store.url (a file's, or PARLEY_STORE_URL), then the default file
// ($XDG_DATA_HOME/parley/parley.db). The configuration is read only when
// neither the flag nor PARLEY_DB names the database, so a command given
// one never depends on the configuration file.
package dbplace

import (
	"github.com/parleyhq/parley/debate/store"
)

// Place is where the session database is and what named it.
type Place struct {
	// Location is a SQLite path (or sqlite:PATH) or a Postgres URL, as
	// given: print it through store.Redact.
	Location string
	// Source is "flag --db", "env PARLEY_DB", where store.url was set
	// ("parley.yaml:12", "env PARLEY_STORE_URL") or "default".
	Source string
}

// StoreURL reads the configuration's store.url and where it was set.
type StoreURL func() (url, source string, err error)

// Find is the database flag (--db), getenv and storeURL name, in that
// order, else the default file.
func Find(flag string, getenv func(string) string, storeURL StoreURL) (Place, error) {
	if flag != "" {
		return Place{Location: flag, Source: "flag --db"}, nil
	}
	if v := getenv("PARLEY_DB"); v != "" {
		return Place{Location: v, Source: "env PARLEY_DB"}, nil
	}
	if storeURL != nil {
		url, source, err := storeURL()
		if err != nil {
			return Place{}, err
		}
		if url != "" {
			return Place{Location: url, Source: source}, nil
		}
	}
	path, err := store.DefaultPath(getenv)
	return Place{Location: path, Source: "default"}, err
}
