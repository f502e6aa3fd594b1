package factory

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate/modes"
)

func testFactory(t *testing.T, env map[string]string) *Factory {
	t.Helper()
	f := New(IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, NewMap(env), 0, modes.All())
	f.Dir = t.TempDir()
	return f
}

// A test's environment is its own: what .env sets lands there, never in
// the process, and a variable already set is not overridden.
func TestDotEnvFillsTheFactorysEnvironment(t *testing.T) {
	t.Parallel()
	f := testFactory(t, map[string]string{"KEPT": "mine"})
	body := "PARLEY_TEST_DOTENV_ONLY=from-dotenv\nKEPT=theirs\n"
	if err := os.WriteFile(filepath.Join(f.Dir, ".env"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.LoadDotEnv(); err != nil {
		t.Fatal(err)
	}
	if f.Getenv("PARLEY_TEST_DOTENV_ONLY") != "from-dotenv" || f.Getenv("KEPT") != "mine" {
		t.Errorf("after .env: %v", f.Env.Environ())
	}
	if _, leaked := os.LookupEnv("PARLEY_TEST_DOTENV_ONLY"); leaked {
		t.Error(".env reached the process environment")
	}
	if err := os.WriteFile(filepath.Join(f.Dir, ".env"), []byte("export = =\n'unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.LoadDotEnv(); err == nil || !strings.Contains(err.Error(), ".env") {
		t.Errorf("a .env that does not parse: %v", err)
	}
}

// Bind reads the parsed command line: which command runs, whether --tools
// and --max-cost were given, a relative --db seen from Dir.
func TestBindCompletesTheSharedFlags(t *testing.T) {
	t.Parallel()
	f := testFactory(t, nil)
	root := &cobra.Command{Use: "parley"}
	root.PersistentFlags().StringVar(&f.Flags.DB, "db", "", "")
	var ran bool
	ask := &cobra.Command{Use: "ask", RunE: func(cmd *cobra.Command, _ []string) error { ran = true; return f.Bind(cmd) }}
	ask.Flags().Float64Var(&f.Flags.MaxCost, "max-cost", 0, "")
	ask.Flags().StringVar(&f.Flags.Tools, "tools", "", "")
	root.AddCommand(ask)
	root.SetArgs([]string{"ask", "--db", "rel.db", "--max-cost", "0"})
	if err := root.Execute(); err != nil || !ran {
		t.Fatal(err)
	}
	g := f.Flags
	if g.Door != "ask" || !g.MaxCostSet || g.ToolsSet || g.DB != filepath.Join(f.Dir, "rel.db") {
		t.Errorf("bound: %+v", g)
	}
}

// The configuration is built once, when first asked for, and never the
// store: a command that reads the configuration opens no database.
func TestConfigIsLazyAndOnce(t *testing.T) {
	t.Parallel()
	f := testFactory(t, map[string]string{"PARLEY_DEFAULT_MODE": "talk"})
	if f.loaded != nil {
		t.Fatal("built before asked for")
	}
	a, err := f.Config()
	if err != nil || a.Config.DefaultMode != "talk" {
		t.Fatalf("%v %+v", err, a)
	}
	b, _ := f.Config()
	if a != b {
		t.Error("loaded twice")
	}
	f.Flags.DB = filepath.Join(f.Dir, "never.db")
	if _, err := os.Stat(f.Flags.DB); !os.IsNotExist(err) {
		t.Errorf("the configuration opened the database: %v", err)
	}
	st, path, err := f.Store()
	if err != nil || path != f.Flags.DB {
		t.Fatalf("Store: %q %v", path, err)
	}
	st.Close()
}
