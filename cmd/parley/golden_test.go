package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/*")

// The --json output of every headless command keeps its shape: each is
// compared, with times and session IDs masked, to a golden file made before
// the output moved into the event renderer. Streams of events (ask, agent)
// are compared without their text deltas, which a lagging consumer may
// receive merged; instead each turn's deltas must add up to its final text.
func TestHeadlessJSONGolden(t *testing.T) {
	t.Parallel()
	project, err := filepath.Abs(filepath.Join("testdata", "agentproject"))
	if err != nil {
		t.Fatal(err)
	}
	goldenDir, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"ask.json", []string{"--demo", "--json", "ask", "@all what is a monad?"}},
		{"ask.txt", []string{"--demo", "ask", "@all what is a monad?"}},
		{"alternate.json", []string{"--demo", "--json", "alternate", "write an LRU cache", "--steps", "2"}},
		{"magi.json", []string{"--demo", "--json", "magi", "ship on friday?"}},
		{"talk.json", []string{"--demo", "--json", "talk", "--topic", "tabs or spaces", "--rounds", "1"}},
		{"talk.txt", []string{"--demo", "talk", "--topic", "tabs or spaces", "--rounds", "1"}},
		{"agent.json", []string{"--demo", "--json", "agent", "--dir", project, "what does this do?"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			code, out, stderr := runCLI(t, "", c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := normalizeOutput(t, out, c.name == "ask.json" || c.name == "agent.json")
			path := filepath.Join(goldenDir, c.name)
			if *updateGolden {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestHeadlessJSONGolden -update-golden writes it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s:\n%s", path, got)
			}
		})
	}
}

var (
	timeField  = regexp.MustCompile(`"(created|started|finished|timestamp)":"[^"]*"`)
	sessionID  = regexp.MustCompile(`\b[0-9a-f]{12}\b`)
	projectDir = regexp.MustCompile(`"[^"]*testdata/agentproject"`)
)

// normalizeOutput masks what differs between runs. With events, text
// deltas are checked against their turn's final text and left out.
func normalizeOutput(t *testing.T, out string, events bool) string {
	t.Helper()
	if events {
		// Parallel turns interleave their events in whatever order they
		// finish: each turn's events keep their order, grouped by turn after
		// the events of no turn.
		var kept []string
		byTurn := map[int][]string{}
		var turns []int
		deltas := map[int]*strings.Builder{}
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			line := sc.Text()
			var ev struct {
				Type  string `json:"type"`
				Turn  int    `json:"turn"`
				Text  string `json:"text"`
				Entry struct {
					Turn   int    `json:"turn"`
					Text   string `json:"text"`
					Kind   string `json:"kind"`
					Status string `json:"status"`
				} `json:"entry"`
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("not JSON: %s", line)
			}
			switch ev.Type {
			case "text_delta":
				if deltas[ev.Turn] == nil {
					deltas[ev.Turn] = &strings.Builder{}
				}
				deltas[ev.Turn].WriteString(ev.Text)
				continue
			case "turn_finished":
				got := ""
				if b := deltas[ev.Entry.Turn]; b != nil {
					got = b.String()
				}
				// A tool loop's final turn holds the parsed summary, not the raw reply.
				if ev.Entry.Kind == "reply" && !strings.Contains(got, "<complete>") && got != ev.Entry.Text {
					t.Errorf("turn %d: deltas add up to %q, the turn says %q", ev.Entry.Turn, got, ev.Entry.Text)
				}
			}
			turn := ev.Turn
			if turn == 0 {
				turn = ev.Entry.Turn
			}
			if turn == 0 {
				kept = append(kept, line)
				continue
			}
			if byTurn[turn] == nil {
				turns = append(turns, turn)
			}
			byTurn[turn] = append(byTurn[turn], line)
		}
		slices.Sort(turns)
		for _, turn := range turns {
			kept = append(kept, byTurn[turn]...)
		}
		out = strings.Join(kept, "\n") + "\n"
	}
	out = timeField.ReplaceAllString(out, `"$1":"T"`)
	out = projectDir.ReplaceAllString(out, `"PROJECT"`)
	return sessionID.ReplaceAllString(out, "ID")
}
