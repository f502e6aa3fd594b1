package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/tui"
)

// toySpec is a mode written outside debate, the way a new mode is: its
// descriptor (one agent, its own config section modes.toy with an agent to
// check) and its Mode. Nothing in tui, serve, mcp or headless knows it.
type toySpec struct{}

func (toySpec) Info() config.ModeInfo {
	return config.ModeInfo{Name: "toy", Key: "alt+7", Title: "one agent answers, counted in words",
		Input: "a line for the toy", Roles: []string{"echo"}, Seats: config.SeatRange{Min: 1, Max: 1},
		Hint: "type a line: the toy's agent answers it"}
}

func (toySpec) New(e debate.Session) (debate.Mode, error) {
	name, _ := e.Configuration().Modes.Sections["toy"]["agent"].(string)
	agents, err := e.MustAgents(name)
	if err != nil {
		return nil, err
	}
	return &toyMode{e: e, agent: agents[0]}, nil
}

func (toySpec) Check(k *config.ConfigCheck) error {
	name, _ := k.Section("toy")["agent"].(string)
	return k.Agent("modes.toy.agent", name)
}

func (toySpec) Seated(c *config.Config) []string {
	name, _ := c.Modes.Sections["toy"]["agent"].(string)
	return []string{name}
}

func (toySpec) Budget(*config.Config) float64               { return 0 }
func (toySpec) Context(*config.Config) config.ContextBudget { return config.ContextBudget{} }
func (toySpec) Seat(c *config.Config, names []string) {
	c.Modes.Sections["toy"] = map[string]any{"agent": names[0]}
}

type toyMode struct {
	e     debate.Session
	agent *debate.Agent
}

func (m *toyMode) Name() string            { return "toy" }
func (m *toyMode) Agents() []*debate.Agent { return []*debate.Agent{m.agent} }
func (m *toyMode) Submit(ctx context.Context, input string) error {
	e := m.e
	e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: input})
	en, err := e.Reserve(debate.TurnSpec{Agent: m.agent, Kind: transcript.KindReply, Prompt: input,
		Messages: e.PromptFor(ctx, debate.Prompt{Mode: "toy", Self: m.agent.Name})}).Run(ctx)
	e.AddOutcome("Toy", fmt.Sprintf("TOY: %s answered in %d words", m.agent.Label(), len(strings.Fields(en.Text))))
	return err
}

// Done when of issue 32: a mode added in a test (the package above, one
// line in the list) gets a config section with validation, a headless
// command, a panel, and an outcome every door shows, with no edit to tui,
// serve, mcp or headless.
func TestAToyModeGetsEveryDoor(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	known := append(modes.All(), toySpec{}) // the one list line

	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Its config section, validated by its descriptor; a section of no mode
	// is refused.
	code, _, stderr := runWith(t, known, "", "--config", write("bad.yaml", "modes:\n  toy:\n    agent: nobody\n"), "--demo", "--mode", "toy", "repl")
	if code != 2 || !strings.Contains(stderr, `bad.yaml:3: modes.toy.agent: unknown agent "nobody"`) {
		t.Fatalf("a bad toy section: exit %d: %s", code, stderr)
	}
	code, _, stderr = runWith(t, known, "", "--config", write("typo.yaml", "modes:\n  toyy:\n    agent: claude\n"), "--demo", "repl")
	if code != 2 || !strings.Contains(stderr, "modes.toyy: unknown mode (one of mention, alternate, talk, magi, agent, council, toy)") {
		t.Fatalf("a section of no mode: exit %d: %s", code, stderr)
	}

	// Its headless command: the REPL in its mode.
	cfgPath := write("toy.yaml", "modes:\n  toy:\n    agent: claude\n")
	db := filepath.Join(dir, "toy.db")
	code, headlessOut, stderr := runWith(t, known, "what is a toy?\n", "--config", cfgPath, "--demo", "--db", db, "--mode", "toy", "repl")
	if code != 0 || !strings.Contains(headlessOut, "[Claude]:") {
		t.Fatalf("exit %d:\n%s\n%s", code, headlessOut, stderr)
	}

	_, info, entries := onlySession(t, db)
	if info.Mode != "toy" {
		t.Fatalf("session %+v", info)
	}
	last := entries[len(entries)-1]
	if last.Kind != transcript.KindOutcome || !strings.HasPrefix(last.Text, "TOY: Claude answered in ") {
		t.Fatalf("saved outcome %+v", last)
	}
	sentence := last.Text

	// The console, resumed: the toy's panel (its agent, its role) and the
	// outcome in the transcript.
	loaded, err := configload.Load(known, cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	var agents []*debate.Agent
	for _, spec := range loaded.Config.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.New("demo")})
	}
	loaded.Config.Offline = true
	eng, err := debate.NewEngine(loaded.Config, agents, "toy")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Restore(info, entries); err != nil {
		t.Fatal(err)
	}
	m := tui.New(tui.Options{Engine: eng})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	screen := m.View().Content
	if !strings.Contains(screen, "7 toy") || !strings.Contains(screen, "Claude") || !strings.Contains(screen, "type a line: the toy's agent answers it") {
		t.Errorf("the console shows no toy tab, panel or hint:\n%s", screen)
	}

	// Every door prints the sentence as the mode wrote it.
	st, _, _ := onlySession(t, db)
	outs := doorOutputs(t, known, st, db, info.ID)
	outs["headless"], outs["console"] = headlessOut, screen
	checkSentence(t, outs, sentence)

	toyOverServe(t, known, cfgPath)
}

// toyOverServe runs the toy in parley serve: the API seats its one agent
// from a session's agents, a posted line runs it, and the API and the page
// show its panel and its outcome.
func toyOverServe(t *testing.T, known config.ModeList, cfgPath string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, errOut, code := startServeWith(ctx, t, known, "--config", cfgPath, "--demo", "--db", filepath.Join(t.TempDir(), "serve.db"), "serve", "--addr", "127.0.0.1:0")
	call := func(method, path, body string) string {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
		}
		return string(out)
	}
	if modes := call("GET", "/api/v1/modes", ""); !strings.Contains(modes, `"name":"toy"`) {
		t.Fatalf("the API lists no toy mode: %s", modes)
	}
	var created struct{ Session debate.SessionInfo }
	if err := json.Unmarshal([]byte(call("POST", "/api/v1/sessions", `{"mode":"toy","agents":["chatgpt"]}`)), &created); err != nil {
		t.Fatal(err)
	}
	id := created.Session.ID
	// The session's event stream, opened before the line is posted, says
	// when the outcome is in (a minute: a loaded machine; a run that works
	// returns at once).
	sctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	req, _ := http.NewRequestWithContext(sctx, "GET", base+"/api/v1/sessions/"+id+"/events", nil)
	events, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	call("POST", "/api/v1/sessions/"+id+"/messages", `{"text":"what is a toy?"}`)
	for sc := bufio.NewScanner(events.Body); !strings.Contains(sc.Text(), `"kind":"outcome"`); {
		if !sc.Scan() {
			t.Fatalf("the event stream ended without the outcome: %v", sc.Err())
		}
	}
	session := call("GET", "/api/v1/sessions/"+id, "")
	page := call("GET", "/s/"+id, "")
	for door, want := range map[string][]string{
		"the API":  {"TOY: ChatGPT answered in "},
		"the page": {"TOY: ChatGPT answered in ", `data-agent="chatgpt"`, `<span class="role">echo</span>`},
	} {
		out := map[string]string{"the API": session, "the page": page}[door]
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%.3000s", door, w, out)
			}
		}
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("serve: exit %d: %s", c, errOut.String())
	}
}
