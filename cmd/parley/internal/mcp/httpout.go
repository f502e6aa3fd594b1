package mcp

import (
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parleyhq/parley/debate/sanitize"
)

// reconnectMillis is the SSE retry field a POST's event stream opens with:
// how long a client whose stream broke waits before it resumes from its
// Last-Event-ID (MCP 2025-11-25, transports §2.1.5-2.1.6: the server SHOULD
// prime the stream with an event ID and SHOULD send retry).
const reconnectMillis = "2000"

// replayBytes bounds what the SDK's event store keeps for resumption,
// over every MCP session of the process (oldest purged first).
const replayBytes = 4 << 20

// newEventStore is what makes go-sdk v1.8.0 prime a POST's SSE stream: it
// writes the priming event (an id, empty data) only when an EventStore is
// set, for protocol versions 2025-11-25 up to 2026-07-28 (SEP-1699; the
// later ones dropped resumable streams). A resumed stream replays what
// was sent; a call whose client dropped its connection has been cancelled
// by then (cancelDropped), so it replays to that call's cancelled result.
func newEventStore() mcp.EventStore {
	st := mcp.NewMemoryEventStore(nil)
	st.SetMaxBytes(replayBytes)
	return st
}

// escapedOut is the HTTP endpoint's reply writer: JSON replies and SSE
// data leave through sanitize's JSON writer (C1, bidi and invisible
// characters only as \u escapes, as at every door), and a POST's event
// stream opens with the retry field.
func escapedOut(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&escapingWriter{ResponseWriter: w, post: r.Method == http.MethodPost}, r)
	})
}

type escapingWriter struct {
	http.ResponseWriter
	post    bool
	started bool
	retried bool // the retry field went out
	json    bool // the body is JSON or an SSE stream of JSON data
	sse     bool
	escaped io.Writer
}

func (e *escapingWriter) start() {
	if e.started {
		return
	}
	e.started = true
	ct := e.Header().Get("Content-Type")
	e.sse = strings.HasPrefix(ct, "text/event-stream")
	e.json = e.sse || strings.HasPrefix(ct, "application/json")
	e.escaped = sanitize.JSONWriter(e.ResponseWriter)
}

func (e *escapingWriter) WriteHeader(code int) {
	e.start()
	e.ResponseWriter.WriteHeader(code)
}

func (e *escapingWriter) Write(p []byte) (int, error) {
	e.start()
	if !e.json {
		return e.ResponseWriter.Write(p)
	}
	if e.sse && e.post && !e.retried {
		e.retried = true
		if _, err := e.ResponseWriter.Write([]byte("retry: " + reconnectMillis + "\n")); err != nil {
			return 0, err
		}
	}
	return e.escaped.Write(p)
}

// Flush and Unwrap keep the SDK's http.ResponseController flushing each
// event as it is written.
func (e *escapingWriter) Flush() {
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (e *escapingWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }
