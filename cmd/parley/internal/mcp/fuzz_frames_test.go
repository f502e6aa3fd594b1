package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
)

// lineServer is a Server on a LineTransport over pipes, as parley mcp runs
// it on stdin and stdout; replies arrive on a channel by id.
type lineServer struct {
	in      *io.PipeWriter
	replies chan map[string]any
	frames  *parleymcp.FrameCount
}

func startLineServer(t testing.TB) *lineServer {
	t.Helper()
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Config.Offline = true
	st, err := store.Open(filepath.Join(t.TempDir(), "fuzz.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := parleymcp.New(context.Background(), parleymcp.Options{Config: l.Config, Agents: demoAgents, Store: st, Version: "fuzz"})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ls := &lineServer{in: inW, replies: make(chan map[string]any, 256), frames: &parleymcp.FrameCount{}}
	ss, err := srv.Connect(context.Background(), &parleymcp.LineTransport{In: inR, Out: outW, Frames: ls.frames})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				if _, isCall := m["method"]; !isCall {
					select {
					case ls.replies <- m:
					default: // replies to fuzz frames nobody waits for
					}
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = ss.Close()
		srv.Close()
		_ = outR.Close()
		_ = st.Close()
	})
	ls.send(t, initLine)
	ls.await(t, "init")
	ls.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return ls
}

func (ls *lineServer) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(ls.in, line+"\n"); err != nil {
		t.Fatalf("the server stopped reading: %v", err)
	}
}

func (ls *lineServer) await(t testing.TB, id string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case m := <-ls.replies:
			if m["id"] == id {
				if m["error"] != nil {
					t.Fatalf("reply to %s: %v", id, m["error"])
				}
				return
			}
		case <-deadline:
			t.Fatalf("no reply to %s within a minute: the server died or hangs", id)
		}
	}
}

var probes atomic.Int64

// FuzzStdioServer feeds random bytes and random JSON-RPC frames to the
// stdio server and asserts it answers a well-formed request after each.
func FuzzStdioServer(f *testing.F) {
	for _, seed := range []string{"not json", "{", "[]", `{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, "\x00\x00", strings.Repeat("[", 2000),
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"parley://sessions/e\u0000"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"agents":"grok"}}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`, `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"x\u202e\"}\r\n{"} {
		f.Add([]byte(seed))
	}
	ls := startLineServer(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		if _, err := ls.in.Write(append(frame, '\n')); err != nil {
			t.Fatalf("the server stopped reading: %v", err)
		}
		id := fmt.Sprintf("probe-%d", probes.Add(1))
		ls.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`, id))
		ls.await(t, id)
	})
	read, refused := ls.frames.Counts()
	f.Logf("frames read: %d, refused with an error reply: %d; every probe answered", read, refused)
}
