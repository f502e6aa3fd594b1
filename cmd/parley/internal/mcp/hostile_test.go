package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
)

// rawClient talks to a `parley mcp` process line by line, as a hostile
// client would: no SDK between the test and the wire.
type rawClient struct {
	t       testing.TB
	in      io.WriteCloser
	replies chan map[string]any
	exited  chan error
}

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// startRaw starts `parley --demo mcp` and initializes it.
func startRaw(t testing.TB) *rawClient {
	t.Helper()
	cmd := exec.Command(parleyBin(t), "--demo", "--db", filepath.Join(t.TempDir(), "raw.db"), "mcp")
	cmd.Env = cleanEnv(t)
	cmd.Dir = t.TempDir()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, in: in, replies: make(chan map[string]any, 1024), exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			c.replies <- m
		}
		c.exited <- cmd.Wait()
		close(c.replies)
	}()
	t.Cleanup(func() {
		_ = in.Close()
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("parley mcp stderr:\n%s", stderr.String())
		}
	})
	c.send(initLine)
	c.reply("init")
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing %.80q: %v (the server is gone)", line, err)
	}
}

// reply waits for the reply with id (a string id, or a number), skipping
// others; nil id waits for the next reply with a null id.
func (c *rawClient) reply(id any) map[string]any {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-c.replies:
			if !ok {
				c.t.Fatalf("the server exited (%v) before the reply to id %v", <-c.exited, id)
			}
			if _, ok := m["method"]; ok {
				continue // a notification
			}
			if m["id"] == id {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no reply to id %v within a minute", id)
		}
	}
}

// ping sends a well-formed request and checks its answer.
func (c *rawClient) ping(n int) {
	c.t.Helper()
	id := fmt.Sprintf("ping-%d", n)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`, id))
	if m := c.reply(id); m["error"] != nil {
		c.t.Fatalf("ping %s: %v", id, m["error"])
	}
}

func errorCode(m map[string]any) (float64, string) {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	msg, _ := e["message"].(string)
	return code, msg
}

// Every malformed line of the audit gets its JSON-RPC error, and the server
// answers the next request (issue 31: each of these ended parley mcp).
func TestMalformedLinesGetErrorsAndTheServerGoesOn(t *testing.T) {
	t.Parallel()
	c := startRaw(t)
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	huge := `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"` + strings.Repeat("x", 20<<20) + `"}}`
	for i, tc := range []struct {
		name, line string
		code       float64
	}{
		{"not json", "not json", -32700},
		{"open brace", "{", -32700},
		{"empty batch", "[]", -32600},
		{"object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
		{"version 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600},
		{"raw NUL", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"pi\x00ng\"}", -32700},
		{"nested past 1000", deep, -32600},
		{"20 MB line", huge, -32600},
		{"a number", "42", -32600},
		{"no method, no result", `{"jsonrpc":"2.0"}`, -32600},
		{"NUL in a resource URI", `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"parley://sessions/e\u0000"}}`, -32602},
	} {
		c.send(tc.line)
		want := idOfCase(tc.line)
		if len(tc.line) > parleymcp.MaxFrameBytes {
			want = nil // never read whole, so its id is unknown
		}
		m := c.reply(want)
		if code, msg := errorCode(m); code != tc.code || msg == "" || strings.ContainsAny(msg, "\x00\n") {
			t.Errorf("%s: reply %v, want error %v with a clean message", tc.name, m, tc.code)
		}
		c.ping(i)
	}
}

// idOfCase is the id a refusal carries: the line's own when it is a valid
// id of a JSON-RPC 2.0-shaped object, else null.
func idOfCase(line string) any {
	var head struct {
		ID any `json:"id"`
	}
	if !json.Valid([]byte(line)) || json.Unmarshal([]byte(line), &head) != nil {
		return nil
	}
	switch id := head.ID.(type) {
	case string, float64:
		return id
	}
	return nil
}

// A resource URI the SDK itself answers (no template matches it) with a
// NUL inside is refused before the SDK quotes it.
func TestResourceURIsWithControlsAreRefused(t *testing.T) {
	t.Parallel()
	c := startRaw(t)
	for i, uri := range []string{"parley://sessions/e\\u0000", "file:///\\u0000", "parley://sessions/\\u202e", "x\\u0085"} {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"%s"}}`, 100+i, uri))
		if code, _ := errorCode(c.reply(float64(100 + i))); code != -32602 {
			t.Errorf("uri %s: code %v, want -32602", uri, code)
		}
	}
	// A clean unknown URI gets the SDK's not-found, with its data intact.
	c.send(`{"jsonrpc":"2.0","id":200,"method":"resources/read","params":{"uri":"parley://sessions/nosuch"}}`)
	if code, _ := errorCode(c.reply(float64(200))); code == 0 {
		t.Errorf("an unknown session was not refused")
	}
	c.ping(0)
}

// hostileFrames are n lines a fuzzing client might send: random bytes,
// JSON-RPC frames with fields swapped for random values, and fragments.
func hostileFrames(rng *rand.Rand, n int) []string {
	methods := []string{"ping", "initialize", "tools/list", "tools/call", "resources/read", "resources/list",
		"notifications/cancelled", "prompts/get", "completion/complete", "logging/setLevel", "", "\u0000", "x\u202e"}
	values := []string{`null`, `1`, `-1`, `1.5`, `1e999`, `"s"`, `""`, `{}`, `[]`, `[1,2]`, `{"a":{"b":[]}}`, `true`,
		`"\u0000"`, `"\ud800"`, `"parley://sessions/\u0000"`, `9007199254740993`, `"` + strings.Repeat("z", 5000) + `"`}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	out := make([]string, 0, n)
	for range n {
		switch rng.IntN(4) {
		case 0: // random bytes, newline-free
			b := make([]byte, rng.IntN(200))
			for i := range b {
				if b[i] = byte(rng.IntN(256)); b[i] == '\n' {
					b[i] = ' '
				}
			}
			out = append(out, string(b))
		case 1: // a frame with random fields
			out = append(out, fmt.Sprintf(`{"jsonrpc":%s,"id":%s,"method":%q,"params":%s}`,
				pick([]string{`"2.0"`, `"1.0"`, `2`, `null`}), pick(values), pick(methods), pick(values)))
		case 2: // a tool call with random arguments
			out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"question":%s,"agents":%s,"id":%s,"limit":%s}}}`,
				1000+rng.IntN(1000), pick([]string{"sessions_list", "session_get", "ask", "nope", "magi"}), pick(values), pick(values), pick(values), pick(values)))
		default: // a valid frame cut short, or a response nobody asked for
			f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, rng.IntN(100), pick(values))
			out = append(out, f[:rng.IntN(len(f)+1)])
		}
	}
	return out
}

// A stream of random frames to the real binary: every well-formed request
// after them is answered; the figures are logged for the closing note.
func TestRandomFramesNeverEndTheServer(t *testing.T) {
	t.Parallel()
	c := startRaw(t)
	frames := hostileFrames(rand.New(rand.NewPCG(31, 31)), 3000)
	for i, f := range frames {
		c.send(f)
		if i%50 == 49 {
			c.ping(i)
		}
	}
	c.ping(len(frames))
	t.Logf("frames sent to parley mcp: %d; the server answered every one of %d pings after them", len(frames), len(frames)/50+1)
}
