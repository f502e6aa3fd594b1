package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/parleyhq/parley/cmd/parley/internal/cli"
)

// A session is listed as "MODE · question"; sessions rename changes the
// title every list shows and keeps the order by last activity.
func TestSessionsRenameAndModeTitles(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, args := range [][]string{{"--demo", "magi", "should we migrate to Kafka?"}, {"--demo", "ask", "@gemini which queue is simpler?"}} {
		if code, _, errOut := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	list := listSessions(t)
	if len(list) != 2 || list[0].Title != "mention · @gemini which queue is simpler?" || list[1].Title != "magi · should we migrate to Kafka?" {
		t.Fatalf("titles: %+v", list)
	}
	magi := list[1].ID
	code, out, errOut := runCLI(t, "", "sessions", "rename", magi[:5], "Kafka", "migration", "vote")
	if code != 0 || !strings.Contains(out, `renamed `+magi+` to "Kafka migration vote"`) {
		t.Fatalf("rename: exit %d: %s%s", code, out, errOut)
	}
	renamed := listSessions(t)
	if renamed[1].ID != magi || renamed[1].Title != "Kafka migration vote" || renamed[0].ID != list[0].ID {
		t.Fatalf("after rename: %+v", renamed)
	}
	code, out, _ = runCLI(t, "", "sessions", "list", "--wide")
	header := strings.SplitN(out, "\n", 2)[0]
	for _, want := range []string{"LAST ACTIVITY", "MODE", "AGENTS", "TURNS", "TOKENS", "COST", "TITLE"} {
		if code != 0 || !strings.Contains(header, want) {
			t.Errorf("list header lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "Kafka migration vote") || !strings.Contains(out, " magi ") {
		t.Errorf("list:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "", "sessions", "rename", magi, "   "); code != 2 || !strings.Contains(errOut, "empty") {
		t.Errorf("blank title: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "sessions", "rename", "zzzz", "x"); code == 0 || !strings.Contains(errOut, "zzzz") {
		t.Errorf("unknown session: exit %d: %s", code, errOut)
	}
}

// sessions list fits the terminal: at 80 and 100 columns no row is wider,
// the title comes first and a long one ends in "…"; --wide shows it whole.
func TestSessionsListFitsTheWidth(t *testing.T) {
	t.Parallel()
	isolate(t)
	long := "@all compare Kafka, NATS, RabbitMQ and Redis Streams for a team of five that runs everything on two small virtual machines"
	for _, q := range []string{long, "@gemini which queue is simpler?"} {
		if code, _, errOut := runCLI(t, "", "--demo", "ask", q); code != 0 {
			t.Fatalf("ask: exit %d: %s", code, errOut)
		}
	}
	for _, cols := range []int{80, 100} {
		setenv(t, "COLUMNS", fmt.Sprint(cols))
		code, out, errOut := runCLI(t, "", "sessions", "list")
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "TITLE ") {
			t.Fatalf("%d columns: exit %d %s\n%s", cols, code, errOut, out)
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > cols {
				t.Errorf("%d columns: a row of %d: %q", cols, w, l)
			}
		}
		short := "mention · @gemini which queue"
		if cols == 100 {
			short = "mention · @gemini which queue is simpler?  "
		}
		if !strings.HasPrefix(lines[1], short) || !strings.HasPrefix(lines[2], "mention · @all compare Kafka") || !strings.Contains(lines[2], "…") {
			t.Errorf("%d columns: titles first, the long one cut:\n%s", cols, out)
		}
	}
	_, out, _ := runCLI(t, "", "sessions", "list", "--wide")
	if !strings.Contains(out, "mention · @all compare Kafka, NATS, RabbitMQ and Redis Streams for a") || !strings.Contains(out, "chatgpt,gemini") {
		t.Errorf("--wide:\n%s", out)
	}
}

// Titles are bounded at every door that takes one, as docs/serve.md
// promises (issue 42, break 8: rename kept 100,000 characters and import
// 1,000,000), and an imported ID never starts with '-' (an ID "--help"
// made the `parley --resume ID` hint unusable). Nothing refused is kept.
func TestTitlesAndIDsAreBoundedAtEveryDoor(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if code, _, errOut := runCLI(t, "", "--demo", "ask", "@gemini is this bounded?"); code != 0 {
		t.Fatalf("ask: %d %s", code, errOut)
	}
	id := listSessions(t)[0].ID
	long := strings.Repeat("x", 100_000)
	if code, _, errOut := runCLI(t, "", "sessions", "rename", id, long); code == 0 || !strings.Contains(errOut, "at most 200 characters") {
		t.Fatalf("rename to 100,000 characters: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "sessions", "rename", id, strings.Repeat("y", 200)); code != 0 {
		t.Fatalf("rename to 200 characters: exit %d: %s", code, errOut)
	}
	if got := listSessions(t)[0].Title; got != strings.Repeat("y", 200) {
		t.Fatalf("title after the refused and the accepted rename: %q", got)
	}
	exported := filepath.Join(dir, "s.json")
	if code, _, errOut := runCLI(t, "", "sessions", "export", id, "--format", "json", "-o", exported); code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	data, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	hostile := func(name string, edit func(map[string]any)) string {
		copyOf := map[string]any{}
		for k, v := range doc {
			copyOf[k] = v
		}
		edit(copyOf)
		b, err := json.Marshal(copyOf)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for name, c := range map[string]struct {
		file, want string
	}{
		"a 1,000,000-character title": {hostile("long.json", func(d map[string]any) { d["title"] = strings.Repeat("z", 1_000_000) }), "at most 200 characters"},
		"an ID that reads as a flag":  {hostile("flag.json", func(d map[string]any) { d["conversation_id"] = "--help" }), "starting with '-'"},
	} {
		other := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".db")
		code, _, errOut := runCLI(t, "", "--db", other, "sessions", "import", c.file)
		if code != cli.ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("import of %s: exit %d %q, want exit %d naming %q", name, code, errOut, cli.ExitUsage, c.want)
		}
		if _, out, _ := runCLI(t, "", "--db", other, "sessions", "list", "--json"); strings.TrimSpace(out) != "[]" {
			t.Errorf("import of %s kept something: %s", name, out)
		}
	}
}
