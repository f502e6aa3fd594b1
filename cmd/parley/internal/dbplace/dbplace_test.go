package dbplace

import (
	"errors"
	"path/filepath"
	"testing"
)

// The flag, then PARLEY_DB, then store.url, then the default file; the
// configuration is not read when the flag or the variable names the
// database, and its error stops the search when it is.
func TestFindOrder(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": "/data"}
	getenv := func(k string) string { return env[k] }
	read := 0
	storeURL := func(url string, err error) StoreURL {
		return func() (string, string, error) { read++; return url, "parley.yaml:2", err }
	}
	for _, c := range []struct {
		flag, envDB, url string
		want             Place
		reads            int
	}{
		{flag: "f.db", envDB: "e.db", url: "u.db", want: Place{"f.db", "flag --db"}},
		{envDB: "e.db", url: "u.db", want: Place{"e.db", "env PARLEY_DB"}},
		{url: "postgres://db/p", want: Place{"postgres://db/p", "parley.yaml:2"}, reads: 1},
		{want: Place{filepath.Join("/data", "parley", "parley.db"), "default"}, reads: 1},
	} {
		env["PARLEY_DB"], read = c.envDB, 0
		got, err := Find(c.flag, getenv, storeURL(c.url, nil))
		if err != nil || got != c.want || read != c.reads {
			t.Errorf("flag %q env %q url %q: %+v %v (configuration read %d times), want %+v (%d)", c.flag, c.envDB, c.url, got, err, read, c.want, c.reads)
		}
	}
	env["PARLEY_DB"] = ""
	bad := errors.New("parley.yaml:1: bad")
	if _, err := Find("", getenv, storeURL("", bad)); !errors.Is(err, bad) {
		t.Errorf("a configuration that does not load: %v, want its error", err)
	}
}
