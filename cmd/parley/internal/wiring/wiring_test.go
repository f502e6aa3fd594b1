package wiring

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
)

// testHost is a Host over env alone (nothing of the machine's), working in
// a folder of its own, its streams discarded unless given.
func testHost(t *testing.T, env map[string]string) Host {
	t.Helper()
	dir := t.TempDir()
	if env == nil {
		env = map[string]string{}
	}
	env["HOME"], env["XDG_CONFIG_HOME"], env["XDG_DATA_HOME"] = dir, filepath.Join(dir, "config"), filepath.Join(dir, "data")
	env["PARLEY_CACHE_DIR"] = filepath.Join(dir, "cache")
	getenv := func(k string) string { return env[k] }
	return Host{
		Getenv:    getenv,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Environ: func() []string {
			var kv []string
			for k, v := range env {
				kv = append(kv, k+"="+v)
			}
			return kv
		},
		Now:    func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) },
		Dir:    dir,
		Stdin:  strings.NewReader(""),
		Stdout: io.Discard,
		Stderr: io.Discard,
	}
}

// --continue picks the latest session, --resume a prefix; they exclude each
// other and --session.
func TestRequestedSession(t *testing.T) {
	t.Parallel()
	st, err := store.Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := RequestedSession(ctx, st, &Flags{Continue: true}); cli.ExitCode(err) != cli.ExitUsage {
		t.Errorf("--continue with nothing saved: %v", err)
	}
	rec := st.Record()
	for _, id := range []string{"aaaa11112222", "bbbb33334444"} {
		rec.Sink(debate.SessionStarted{Session: debate.SessionInfo{ID: id, Mode: "mention"}})
		rec.Sink(debate.EntryAdded{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindNote, Speaker: "user", Text: id, Status: "complete"}})
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		g    Flags
		want string
		code int
	}{
		{Flags{}, "", 0},
		{Flags{Continue: true}, "bbbb33334444", 0},
		{Flags{Resume: "aa"}, "aaaa11112222", 0},
		{Flags{Session: "bbbb3"}, "bbbb33334444", 0},
		{Flags{Resume: "cc"}, "", cli.ExitUsage},
		{Flags{Resume: "aa", Continue: true}, "", cli.ExitUsage},
		{Flags{Resume: "aa", Session: "bb"}, "", cli.ExitUsage},
	}
	for _, c := range cases {
		id, err := RequestedSession(ctx, st, &c.g)
		if id != c.want || cli.ExitCode(err) != c.code {
			t.Errorf("%+v: %q, %v; want %q, exit %d", c.g, id, err, c.want, c.code)
		}
	}
}

// The configuration comes from the host's environment and folder, never
// the process's: PARLEY_* from Environ, ./parley.yaml from Dir.
func TestLoadConfigurationReadsTheHost(t *testing.T) {
	t.Parallel()
	h := testHost(t, map[string]string{"PARLEY_DEFAULT_MODE": "magi"})
	g := &Flags{Modes: modes.All()}
	loaded, err := LoadConfiguration(h, g)
	if err != nil || loaded.Config.DefaultMode != "magi" || loaded.Path != "" {
		t.Fatalf("PARLEY_DEFAULT_MODE=magi: %v, %+v", err, loaded)
	}
	if err := os.WriteFile(filepath.Join(h.Dir, "parley.yaml"), []byte("default_mode: talk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Environ = func() []string { return nil }
	if loaded, err = LoadConfiguration(h, g); err != nil || loaded.Config.DefaultMode != "talk" || loaded.Path != filepath.Join(h.Dir, "parley.yaml") {
		t.Fatalf("./parley.yaml in Dir: %v, %+v", err, loaded)
	}
	g.Mode = "telepathy"
	if _, err := LoadConfiguration(h, g); cli.ExitCode(err) != cli.ExitUsage || !strings.Contains(err.Error(), "telepathy") {
		t.Errorf("--mode telepathy: %v", err)
	}
}

// New builds what the flags ask for: no key in the host's environment
// means the demo agents; NoPersist opens no database, --db opens that one.
func TestNewBuildsWhatTheFlagsAsk(t *testing.T) {
	t.Parallel()
	h := testHost(t, nil)
	g := &Flags{Modes: modes.All(), NoPersist: true, Door: "ask", DemoPace: time.Microsecond}
	loaded, err := LoadConfiguration(h, g)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(h, g, loaded, debate.ModeMention)
	if err != nil {
		t.Fatal(err)
	}
	if !a.NoKeys || !a.Demo || a.Store != nil || a.DBFile != "" || a.Door != "ask" || a.Engine.Current().Name() != debate.ModeMention {
		t.Errorf("no key, NoPersist: %+v", a)
	}
	a.Close()
	entries, err := os.ReadDir(filepath.Join(h.Dir, "data"))
	if !os.IsNotExist(err) {
		t.Errorf("NoPersist made the data folder: %v %v", entries, err)
	}

	db := filepath.Join(h.Dir, "s.db")
	g = &Flags{Modes: modes.All(), DB: db, DemoPace: time.Microsecond}
	h = testHost(t, map[string]string{"OPENAI_API_KEY": "sk-test"})
	if loaded, err = LoadConfiguration(h, g); err != nil {
		t.Fatal(err)
	}
	if a, err = New(h, g, loaded, ""); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.NoKeys || a.Demo || a.DBFile != db || a.Door != "console" {
		t.Errorf("a key, --db: NoKeys %v Demo %v DBFile %q Door %q", a.NoKeys, a.Demo, a.DBFile, a.Door)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("--db was not opened: %v", err)
	}
}

// --max-cost, when given, is the run's cap: finite and not negative.
func TestApplyMaxCost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		set  bool
		v    float64
		want float64
		code int
	}{
		{false, 5, 1.5, 0},
		{true, 0.25, 0.25, 0},
		{true, 0, 0, 0},
		{true, -1, 1.5, cli.ExitUsage},
		{true, math.NaN(), 1.5, cli.ExitUsage},
		{true, math.Inf(1), 1.5, cli.ExitUsage},
	} {
		cfg := &config.Config{BudgetUSD: 1.5}
		err := ApplyMaxCost(&Flags{MaxCost: c.v, MaxCostSet: c.set}, cfg)
		if cli.ExitCode(err) != c.code || cfg.BudgetUSD != c.want {
			t.Errorf("set %v, %v: budget %v, %v; want %v, exit %d", c.set, c.v, cfg.BudgetUSD, err, c.want, c.code)
		}
	}
}

// The database: --db, then PARLEY_DB, then store.url, then
// $XDG_DATA_HOME/parley/parley.db, each read from the host.
func TestDBPath(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	h := testHost(t, env)
	g := &Flags{Modes: modes.All()}
	if p, err := DBPath(h, g); err != nil || p != filepath.Join(h.Dir, "data", "parley", "parley.db") {
		t.Errorf("default: %q %v", p, err)
	}
	if err := os.WriteFile(filepath.Join(h.Dir, "parley.yaml"), []byte("store:\n  url: /yaml.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, _ := DBPlace(h, g); p.Location != "/yaml.db" || !strings.Contains(p.Source, "parley.yaml") {
		t.Errorf("store.url: %+v", p)
	}
	env["PARLEY_DB"] = "/env.db"
	if p, _ := DBPlace(h, g); p.Location != "/env.db" || p.Source != "env PARLEY_DB" {
		t.Errorf("PARLEY_DB: %+v", p)
	}
	g.DB = "/flag.db"
	if p, _ := DBPlace(h, g); p.Location != "/flag.db" || p.Source != "flag --db" {
		t.Errorf("--db: %+v", p)
	}
}

// Seats follow the keys the host's environment holds; the demo seats none.
func TestSeatReadsTheHostsKeys(t *testing.T) {
	t.Parallel()
	h := testHost(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	loaded, err := LoadConfiguration(h, &Flags{Modes: modes.All()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loaded.Config
	if s := Seat(cfg, true, h.Getenv); s != nil || cfg.Seats != nil {
		t.Errorf("demo: %+v", s)
	}
	s := Seat(cfg, false, h.Getenv)
	if s == nil || len(s.StandIns) == 0 || s.Model == "" {
		t.Fatalf("one key: %+v", s)
	}
	for _, st := range s.StandIns {
		if st.Agent == "claude" {
			t.Errorf("claude has its key yet stands in: %+v", st)
		}
	}
}

// A save that fails is said once and kept for the exit code.
func TestSaveStatusSaysItOnce(t *testing.T) {
	t.Parallel()
	var s SaveStatus
	var out strings.Builder
	s.fail(&out, os.ErrPermission)
	s.fail(&out, os.ErrClosed)
	if s.Err() != os.ErrPermission || strings.Count(out.String(), "saving the session failed") != 1 {
		t.Errorf("%v %q", s.Err(), out.String())
	}
}
