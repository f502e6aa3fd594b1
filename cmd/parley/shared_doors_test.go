package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/transcript"
)

// TestEveryDoorOnOneSession shares one session between four doors, each
// its own process on one SQLite file: the console (tmux), `parley ask
// --session`, the HTTP API of `parley serve` and `parley mcp`'s ask tool.
// Each door asks in turn; every door's question and answer are kept, in
// order, marked with their door; the prompt each door sent the (fake)
// model holds the turns the other doors added before it; and the open
// console shows the others' turns, marked "via …".
func TestEveryDoorOnOneSession(t *testing.T) {
	t.Parallel()
	_, _ = tmuxBinary(t) // skips without tmux (fails on CI)
	r := newSharedRig(t)
	id := r.session() // q0 and its answer, through ask

	vars := ""
	for _, kv := range r.env { // the rig's own settings: the key, the fake's endpoint, the folders
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL":
			vars += " " + shellQuote(kv)
		}
	}
	tm := startTmux(t, [2]int{120, 50}, fmt.Sprintf("cd %s && env -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u GOOGLE_API_KEY -u PARLEY_DB TERM=xterm-256color%s %s --db %s --resume %s",
		r.dir, vars, r.bin, r.db, id))
	tm.wait("the resumed session", func(s string) bool { return strings.Contains(flatten(s), "A:q0") })
	base := r.serve()
	mcp := r.mcp()

	// Each door asks, then the test waits for what that door shows at the
	// exchange's end (the session's lease is given back before it).
	console := func(q string) {
		tm.text("@chatgpt " + q)
		tm.keys("Enter")
		tm.wait("the console's answer to "+q, func(s string) bool {
			return strings.Contains(flatten(s), "A:"+q) && strings.Contains(s, "\ndone ")
		})
	}
	doors := []struct {
		door, question string
		ask            func(q string)
	}{
		{"console", "from-console", console},
		{"serve", "from-api", func(q string) {
			r.post(base+"/api/v1/sessions/"+id+"/messages", `{"text":"@chatgpt `+q+`"}`)
			r.waitAPI(base+"/api/v1/sessions/"+id, `"text":"A:`+q+`"`)
		}},
		{"mcp", "from-mcp", func(q string) { mcp.ask(id, q) }},
		{"ask", "from-ask", func(q string) {
			if _, stderr, err := r.parley("ask", "--session", id, "@chatgpt "+q); err != nil {
				t.Fatalf("ask: %v\n%s", err, stderr)
			}
		}},
		{"console", "console-again", console},
	}
	questions := []string{"q0"}
	for i, d := range doors {
		d.ask(d.question)
		r.waitTurns(id, 4+2*i, "the answer to "+d.question)
		questions = append(questions, d.question)
	}
	mcp.leave()

	entries := r.entries(id)
	origins := []string{"ask", "console", "serve", "mcp", "ask", "console"}
	if len(entries) != 2*len(questions) {
		t.Fatalf("%d turns, want %d: %+v", len(entries), 2*len(questions), entries)
	}
	for i, q := range questions {
		question, answer := entries[2*i], entries[2*i+1]
		if question.Kind != transcript.KindUser || lastLine(question.Text) != q || question.Origin != origins[i] {
			t.Errorf("turn %d is %s %q via %q, want the question %q via %s", question.Turn, question.Kind, question.Text, question.Origin, q, origins[i])
		}
		if answer.Text != "A:"+q || answer.Status != transcript.StatusComplete || answer.Origin != origins[i] {
			t.Errorf("turn %d is %q %s via %q, want the complete answer to %q via %s", answer.Turn, answer.Text, answer.Status, answer.Origin, q, origins[i])
		}
		// The model's prompt for q holds every turn before it, whichever door added it.
		prompt := r.promptFor(q)
		for _, earlier := range questions[:i] {
			if !strings.Contains(prompt, earlier) || !strings.Contains(prompt, "A:"+earlier) {
				t.Errorf("the prompt %s's door sent lacks %q and its answer:\n%s", q, earlier, prompt)
			}
		}
	}
	tm.wait("the other doors' turns in the console", func(s string) bool {
		s = flatten(s)
		return strings.Contains(s, "via serve") && strings.Contains(s, "via mcp") && strings.Contains(s, "via ask")
	})
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// waitTurns waits until the session has n turns, the last one settled.
func (r *sharedRig) waitTurns(id string, n int, what string) {
	r.t.Helper()
	deadline := time.Now().Add(tmuxWait)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		en := r.entries(id)
		if len(en) >= n && en[n-1].Status != transcript.StatusStreaming {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s never saved: %+v", what, en)
		}
		<-poll.C
	}
}

// promptFor is the whole prompt (every message) of the request whose
// newest message is question q.
func (r *sharedRig) promptFor(q string) string {
	for _, req := range r.srv.Requests() {
		if n := len(req.Messages); n > 0 && lastLine(req.Messages[n-1].Content) == q {
			var b strings.Builder
			for _, m := range req.Messages {
				b.WriteString(string(m.Role) + ": " + m.Content + "\n")
			}
			return b.String()
		}
	}
	r.t.Fatalf("the model was never asked %q", q)
	return ""
}

// serve starts `parley serve` on a loopback port and returns its base URL.
func (r *sharedRig) serve() string {
	r.t.Helper()
	cmd := exec.Command(r.bin, "--db", r.db, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewReader(out)
	deadline := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	line, err := lines.ReadString('\n')
	deadline.Stop()
	if err != nil {
		r.t.Fatalf("parley serve: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	return strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
}

// post sends a JSON body and fails the test unless it is accepted.
func (r *sharedRig) post(url, body string) {
	r.t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		r.t.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
}

// waitAPI polls the API's session until it holds want and is no longer busy.
func (r *sharedRig) waitAPI(url, want string) {
	r.t.Helper()
	deadline := time.Now().Add(tmuxWait)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		resp, err := http.Get(url)
		if err != nil {
			r.t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), want) && strings.Contains(string(b), `"busy":false`) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("GET %s never held %s, not busy: %s", url, want, b)
		}
		<-poll.C
	}
}

// mcpDoor is `parley mcp` driven over its stdin and stdout.
type mcpDoor struct {
	t     *testing.T
	in    io.WriteCloser
	out   *bufio.Scanner
	done  chan error
	calls int
}

func (r *sharedRig) mcp() *mcpDoor {
	r.t.Helper()
	cmd := exec.Command(r.bin, "--db", r.db, "mcp")
	cmd.Dir, cmd.Env = r.dir, r.env
	in, err := cmd.StdinPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	d := &mcpDoor{t: r.t, in: in, out: bufio.NewScanner(out), done: make(chan error, 1)}
	d.out.Buffer(make([]byte, 1<<20), 16<<20)
	go func() { d.done <- cmd.Wait() }()
	r.t.Cleanup(func() { _ = cmd.Process.Kill() })
	d.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doors","version":"1"}}}`)
	d.reply(`"init"`)
	d.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return d
}

func (d *mcpDoor) send(line string) {
	d.t.Helper()
	if _, err := io.WriteString(d.in, line+"\n"); err != nil {
		d.t.Fatal(err)
	}
}

// reply reads lines until the reply with id (its JSON), within a deadline.
func (d *mcpDoor) reply(id string) string {
	d.t.Helper()
	got := make(chan string, 1)
	go func() {
		for d.out.Scan() {
			if line := d.out.Text(); strings.Contains(line, `"id":`+id) && !strings.Contains(line, `"method"`) {
				got <- line
				return
			}
		}
		close(got)
	}()
	select {
	case line, ok := <-got:
		if !ok {
			d.t.Fatalf("parley mcp ended before the reply to %s", id)
		}
		return line
	case <-time.After(tmuxWait):
		d.t.Fatalf("no reply to %s", id)
	}
	return ""
}

// ask calls the ask tool on session id and fails the test on an error.
func (d *mcpDoor) ask(id, q string) {
	d.t.Helper()
	d.calls++
	d.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{"question":%q,"agents":["chatgpt"],"session_id":%q}}}`, d.calls, q, id))
	if line := d.reply(fmt.Sprint(d.calls)); strings.Contains(line, `"isError":true`) || strings.Contains(line, `"error":{`) {
		d.t.Fatalf("mcp ask: %s", line)
	}
}

// leave closes stdin and waits for the process to end.
func (d *mcpDoor) leave() {
	d.t.Helper()
	_ = d.in.Close()
	select {
	case err := <-d.done:
		if err != nil {
			d.t.Fatalf("parley mcp: %v", err)
		}
	case <-time.After(tmuxWait):
		d.t.Fatal("parley mcp did not end after its client left")
	}
}
