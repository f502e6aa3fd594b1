package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// longAnswer is about tokens tokens of the Markdown models send: headings,
// paragraphs, lists, tables, and code fences with and without a language.
func longAnswer(agent string, tokens int) string {
	var b strings.Builder
	for i := 1; len(providertest.SplitWords(b.String())) < tokens; i++ {
		fmt.Fprintf(&b, "## %s, part %d\n\nThe retry loop needs **a bound** on attempts and on the total wait, or a slow dependency becomes an outage.\n\n", agent, i)
		for k := 1; k <= 4; k++ {
			fmt.Fprintf(&b, "%d. Step %d: back off with `jitter`, cap the wait at the deadline, log the attempt.\n", k, k)
		}
		b.WriteString("\n| option | cost | risk |\n|---|---|---|\n| retry | low | storms |\n| queue | medium | latency |\n| drop | none | data loss |\n\n")
		if i%2 == 0 {
			b.WriteString("```\nattempt 1: timeout after 2s\nattempt 2: timeout after 4s\nattempt 3: ok\n```\n\n")
		} else {
			b.WriteString("```go\nfor attempt := 0; attempt < 5; attempt++ {\n\tif err := call(); err == nil {\n\t\treturn nil\n\t}\n}\n```\n\n")
		}
		b.WriteString("Keep the state explicit and the errors typed, so the caller can tell a timeout from a refusal and decide whether to try again.\n\n- measure first\n- then cap\n- give up cleanly\n\n")
	}
	return b.String()
}

// pacedProvider streams a fixed answer in chunks at a wall-clock rate.
type pacedProvider struct {
	chunks   map[string][]string // by model
	interval time.Duration
}

func (pacedProvider) Name() string { return "paced" }

func (p pacedProvider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	return &pacedStream{ctx: ctx, chunks: p.chunks[req.Model], tick: time.NewTicker(p.interval)}, nil
}

type pacedStream struct {
	ctx    context.Context
	chunks []string
	i      int
	tick   *time.Ticker
	err    error
}

func (s *pacedStream) Next() bool {
	if s.i >= len(s.chunks) {
		return false
	}
	select {
	case <-s.ctx.Done():
		s.err = s.ctx.Err()
		return false
	case <-s.tick.C:
	}
	s.i++
	return true
}
func (s *pacedStream) Delta() string { return s.chunks[s.i-1] }
func (s *pacedStream) Err() error    { return s.err }
func (s *pacedStream) Close() error  { s.tick.Stop(); return nil }
func (s *pacedStream) Result() providers.Result {
	return providers.Result{Usage: providers.Usage{InputTokens: 100, OutputTokens: len(s.chunks)}}
}

// chunked groups an answer's tokens n to a chunk, as providers send them.
func chunked(tokens []string, n int) []string {
	var out []string
	for i := 0; i < len(tokens); i += n {
		out = append(out, strings.Join(tokens[i:min(i+n, len(tokens))], ""))
	}
	return out
}

// proseAnswer is about tokens tokens of plain prose: paragraphs of a few
// sentences, no Markdown marks.
func proseAnswer(agent string, tokens int) string {
	var b strings.Builder
	for i := 1; len(providertest.SplitWords(b.String())) < tokens; i++ {
		fmt.Fprintf(&b, "%s, part %d. The retry loop needs a bound on attempts and on the total wait, or a slow dependency becomes an outage. ", agent, i)
		b.WriteString("Keep the state explicit and the errors typed, so the caller can tell a timeout from a refusal and decide whether to try again. ")
		b.WriteString("Measure first, then cap the wait at the deadline, and give up cleanly when the budget is spent.\n\n")
	}
	return b.String()
}

// BenchmarkConsolePaced is what a user pays for the console while two
// answers stream, against its floor. Parley: the whole Bubble Tea program
// (update, view, the renderer's diff and its writes) on a pseudo-terminal,
// two agents answering "@all", each streaming chunks of 3 tokens 25 ms apart
// (120 tokens a second, a fast model), paced by the wall clock. The floor:
// testdata/floor, built here, the smallest Bubble Tea + Lip Gloss program
// drawing two bordered panels and a transcript from the same chunks at the
// same pace and frame rate, as plain wrapped text, on its own
// pseudo-terminal of the same size. Both report process CPU (getrusage),
// not wall time: the machine may be shared and loaded. Metrics: Parley's
// ms-cpu/token, the floor's floor-ms-cpu/token and x-floor, their ratio.
func BenchmarkConsolePaced(b *testing.B) {
	const (
		interval       = 25 * time.Millisecond
		tokensPerChunk = 3
	)
	tokensPerAgent := 1200 // 400 chunks: 10 s a run
	if testing.Short() {
		tokensPerAgent = 300
	}
	floor := filepath.Join(b.TempDir(), "floor")
	if out, err := exec.Command("go", "build", "-o", floor, "./testdata/floor").CombinedOutput(); err != nil {
		b.Fatalf("building the floor: %v\n%s", err, out)
	}
	cfg := testConfig(b)
	cfg.Modes.Mention.Agents = []string{"chatgpt", "claude"} // "@all": two answers at once
	for _, work := range []struct {
		name   string
		answer func(string, int) string
	}{{"prose", proseAnswer}, {"markdown", longAnswer}} {
		chunks := map[string][]string{}
		var lists [][]string
		total := 0
		for _, name := range cfg.Modes.Mention.Agents {
			spec := agentSpec(b, cfg, name)
			words := providertest.SplitWords(work.answer(spec.Name, tokensPerAgent))[:tokensPerAgent]
			chunks[spec.Model] = chunked(words, tokensPerChunk)
			lists = append(lists, chunks[spec.Model])
			total += len(words)
		}
		for _, size := range [][2]int{{100, 30}, {160, 45}} {
			b.Run(fmt.Sprintf("%s/%dx%d", work.name, size[0], size[1]), func(b *testing.B) {
				var cpu, floorCPU time.Duration
				runs := 0
				for b.Loop() {
					_, used := runPacedConsole(b, floor, cfg, pacedProvider{chunks: chunks, interval: interval}, total, size[0], size[1])
					cpu += used
					floorCPU += runFloor(b, floor, lists, interval, size[0], size[1])
					runs++
				}
				per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(total*runs) }
				b.ReportMetric(per(cpu), "ms-cpu/token")
				b.ReportMetric(per(floorCPU), "floor-ms-cpu/token")
				b.ReportMetric(per(cpu)/per(floorCPU), "x-floor")
			})
		}
	}
}

// agentSpec is the configured agent called name.
func agentSpec(tb testing.TB, cfg *config.Config, name string) config.AgentSpec {
	for _, spec := range cfg.Agents {
		if spec.Name == name {
			return spec
		}
	}
	tb.Fatalf("no agent %q", name)
	return config.AgentSpec{}
}

// runFloor runs the floor program on a cols×rows pseudo-terminal streaming
// lists (one per agent) and returns the CPU time it reports.
func runFloor(b *testing.B, bin string, lists [][]string, interval time.Duration, cols, rows int) time.Duration {
	b.Helper()
	dir := b.TempDir()
	chunksFile, cpuFile := filepath.Join(dir, "chunks.json"), filepath.Join(dir, "cpu")
	raw, _ := json.Marshal(lists)
	if err := os.WriteFile(chunksFile, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "-chunks", chunksFile, "-interval", interval.String(), "-cpu", cpuFile)
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		b.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	written := make(chan int64, 1)
	go func() { n, _ := io.Copy(io.Discard, master); written <- n }() // the terminal reads what the floor writes
	if err := cmd.Wait(); err != nil {
		b.Fatalf("the floor: %v", err)
	}
	select {
	case n := <-written:
		b.Logf("the floor wrote %d bytes", n)
	case <-time.After(10 * time.Second):
	}
	out, err := os.ReadFile(cpuFile)
	ns, perr := strconv.ParseInt(string(out), 10, 64)
	if err != nil || perr != nil || ns <= 0 {
		b.Fatalf("the floor's CPU time: %q %v %v", out, err, perr)
	}
	return time.Duration(ns)
}

// runPacedConsole runs the console program on a cols×rows pseudo-terminal
// while the engine's agents answer "@all", and returns the tokens streamed
// and the process CPU time the exchange took. The terminal's side is read
// by another process (floor -drain), as the floor's is: only the console's
// work is measured.
func runPacedConsole(b *testing.B, floor string, cfg *config.Config, p pacedProvider, want, cols, rows int) (int, time.Duration) {
	b.Helper()
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
	}
	e, err := debate.NewEngine(cfg, agents, "mention")
	if err != nil {
		b.Fatal(err)
	}
	master, tty, err := pty.Open()
	if err != nil {
		b.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		b.Fatal(err)
	}
	var written strings.Builder
	reader := exec.Command(floor, "-drain")
	reader.Stdin, reader.Stdout = master, &written
	if err := reader.Start(); err != nil {
		b.Fatal(err)
	}
	defer reader.Process.Kill() // on a failure before the end
	m := New(Options{Engine: e})
	defer m.Close()
	prog := tea.NewProgram(m, append(ProgramOptions(), tea.WithInput(nil), tea.WithOutput(tty), tea.WithWindowSize(cols, rows), tea.WithoutSignals())...)
	ran := make(chan error, 1)
	go func() { _, err := prog.Run(); ran <- err }()
	start := cpuTime()
	if err := e.Submit(context.Background(), "@all how should a retry loop be bounded?"); err != nil {
		b.Fatal(err)
	}
	streamed := 0
	for _, en := range e.History().Entries() {
		if en.IsAgentTurn() {
			streamed += len(providertest.SplitWords(en.Text))
		}
	}
	// The last deltas reach the screen within a frame or two.
	deadline := time.Now().Add(10 * time.Second)
	for len(m.bus.ch) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	used := cpuTime() - start
	prog.Quit()
	select {
	case err := <-ran:
		if err != nil {
			b.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		b.Fatal("the console did not quit")
	}
	tty.Close()
	read := make(chan error, 1)
	go func() { read <- reader.Wait() }()
	select {
	case err := <-read:
		if err != nil {
			b.Fatalf("the terminal's reader: %v", err)
		}
	case <-time.After(10 * time.Second):
		b.Fatal("the terminal's reader did not see the end")
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(written.String())); n < 20_000 {
		b.Fatalf("the console wrote %q bytes to the terminal: it did not draw the stream", written.String())
	} else {
		b.Logf("the console wrote %d bytes", n)
	}
	if streamed < want {
		b.Fatalf("%d tokens streamed, want %d", streamed, want)
	}
	return streamed, used
}

// savedLongAnswers writes a mention session of turns turns: questions and
// 3,000-token Markdown answers of three agents, as a real database holds them.
func savedLongAnswers(tb testing.TB, turns int) (*store.Store, string) {
	tb.Helper()
	st, err := store.Open(filepath.Join(tb.TempDir(), "answers.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	info := debate.SessionInfo{ID: "10a9a9511e55", Title: "long answers", Mode: "mention", Created: fixedNow}
	var entries []transcript.Entry
	speakers := []string{"gemini", "chatgpt", "claude"}
	for turn := 1; turn <= turns; turn++ {
		en := transcript.Entry{Turn: turn, Mode: "mention", Status: transcript.StatusComplete, Started: fixedNow, Finished: fixedNow.Add(time.Second)}
		if turn%4 == 1 {
			en.Kind, en.Speaker, en.Display, en.Text = transcript.KindUser, transcript.SpeakerUser, "You", "@all how should a retry loop be bounded?"
		} else {
			sp := speakers[(turn-2)%4]
			en.Kind, en.Speaker, en.Display, en.Model = transcript.KindReply, sp, sp, "gpt-5"
			en.Text = strings.Join(providertest.SplitWords(longAnswer(sp, 3000))[:3000], "") + "\n\nIn short: bound the retries and the wait."
			en.Usage = providers.Usage{InputTokens: 1000, OutputTokens: 3000}
		}
		entries = append(entries, en)
	}
	if _, err := st.Import(context.Background(), info, entries, false); err != nil {
		tb.Fatal(err)
	}
	return st, info.ID
}

// BenchmarkResumeLongAnswers opens a session of 20 turns, 15 of them
// 3,000-token Markdown answers, from its database the way `parley --resume`
// does, up to the console's first frame (120×40).
func BenchmarkResumeLongAnswers(b *testing.B) {
	saved, id := savedLongAnswers(b, 20)
	path := saved.Path()
	_, all, err := saved.LoadRecent(context.Background(), id)
	if err != nil {
		b.Fatal(err)
	}
	words := strings.Fields(all[len(all)-1].Text)
	lastWords := strings.Join(words[len(words)-2:], " ") // "give up", "the deadline", …
	if strings.ContainsAny(lastWords, "-|`*#") {
		b.Fatalf("the answer ends in Markdown marks (%q): cut it elsewhere", lastWords)
	}
	saved.Close()
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		st, err := store.Open(path) // a fresh process opens the file
		if err != nil {
			b.Fatal(err)
		}
		m, frame := resumeConsoleAt(b, st, id, 120, 40)
		if !strings.Contains(ansi.Strip(frame), lastWords) {
			b.Fatalf("the first frame does not show the last answer's end %q:\n%s", lastWords, ansi.Strip(frame))
		}
		total += time.Since(start)
		b.StopTimer()
		m.Close()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-frame")
}
