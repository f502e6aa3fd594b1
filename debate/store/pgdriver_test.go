package store

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT 1`:                   `SELECT 1`,
		`a = ? AND b = ?`:            `a = $1 AND b = $2`,
		`x = ?1 OR y = ?2 OR z = ?1`: `x = $1 OR y = $2 OR z = $1`,
		`LIKE ? ESCAPE '\' AND t = '?' AND "?" = ?`: `LIKE $1 ESCAPE '\' AND t = '?' AND "?" = $2`,
		`'it''s ?' || ?`:                `'it''s ?' || $1`,
		`unterminated '?`:               `unterminated '?`,
		`VALUES (?, ?, ?) RETURNING id`: `VALUES ($1, $2, $3) RETURNING id`,
		`?10 ?`:                         `$10 $1`,
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every string goes to Postgres as text it accepts and comes back as it
// was; text Postgres takes as it is is stored unchanged.
func FuzzPGBytes(f *testing.F) {
	for _, s := range []string{"", "a", "nul\x00", "\xff", bytesMarker, bytesMarker + "!!", "漢字"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stored, _ := toPG(s).(string)
		if !utf8.ValidString(stored) || strings.ContainsRune(stored, 0) {
			t.Fatalf("toPG(%q) = %q: not text Postgres accepts", s, stored)
		}
		if back := fromPG(stored); back != s {
			t.Fatalf("fromPG(toPG(%q)) = %q", s, back)
		}
		if utf8.ValidString(s) && !strings.ContainsRune(s, 0) && !strings.HasPrefix(s, bytesMarker) && stored != s {
			t.Fatalf("plain text %q was stored as %q", s, stored)
		}
	})
}

// A Postgres URL is printed without its password, wherever it was
// written; errors quoting it are scrubbed.
func TestRedactHidesThePassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://parley:s3cret@db:5432/parley?sslmode=disable": "postgres://parley:xxxxx@db:5432/parley?sslmode=disable",
		"postgresql://u@h/d?password=s3cret":                      "postgresql://u@h/d?password=xxxxx",
		"postgres://u:s3cret@h/d?password=s3cret":                 "postgres://u:xxxxx@h/d?password=xxxxx",
		"postgres://u:s3cret@h:bad port/d":                        "postgres://(unreadable URL)",
		"/home/me/parley.db":                                      "/home/me/parley.db",
	} {
		got := Redact(in)
		if got != want || strings.Contains(got, "s3cret") {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	if err := scrub(errors.New("failed: password=s3cret"), "s3cret"); strings.Contains(err.Error(), "s3cret") {
		t.Errorf("scrub left the password: %v", err)
	}
	_, err := Open("postgres://parley:s3cret@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a failed connection's error: %v", err)
	}
	_, err = Open("postgres://parley:s3cret@127.0.0.1:1/none?pool_max_conns=nonsense")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a bad URL's error: %v", err)
	}
}
