// Package providertest runs fake model servers over real HTTP for tests.
//
// Each fake (OpenAI, Anthropic, Gemini) speaks its vendor's wire format:
// the same paths, the same SSE events and the same error JSON, so the real
// SDKs inside the adapters parse them as they would the real service. A test
// decides every answer with a handler func(Request) Reply and can inspect
// every request the server received afterwards.
//
//	srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
//		return providertest.Reply{Text: "hello there", Usage: providers.Usage{InputTokens: 10, OutputTokens: 2}}
//	})
//	spec := providers.Spec{Type: "openai", BaseURL: srv.URL, APIKeyEnv: "TEST_KEY"}
//
// A key equal to BadKey in the vendor's key header is refused with the
// vendor's real authentication error, without calling the handler.
package providertest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
)

// BadKey is the API key every fake rejects with its vendor's auth error.
const BadKey = "bad-key"

// Reply describes one response of a fake server.
type Reply struct {
	// Text is streamed as the answer, split into words when Chunks is nil.
	Text string
	// Chunks, when set, are the text deltas sent one per SSE event.
	Chunks []string
	// Usage is reported the vendor's way (InputTokens includes CachedTokens).
	Usage providers.Usage
	// Status other than 0 and 200 sends an error response in the vendor's
	// error JSON shape; Text, when set, is its message.
	Status int
	// ErrorBody, when set, replaces the generated error JSON verbatim.
	ErrorBody string
	// RetryAfter is sent as the Retry-After header when set.
	RetryAfter string
	// CutAfter > 0 aborts the connection after that many text chunks: no
	// final event, no usage, no clean end of the chunked body.
	CutAfter int
	// EndAfter > 0 ends the body cleanly after that many text chunks,
	// without the vendor's terminal event (no finish reason, no [DONE], no
	// message_stop, no response.completed): a stream a proxy or a server
	// closed early, which clients see as a normal EOF.
	EndAfter int
	// StreamError, when set, is sent as the vendor's error event inside a
	// 200 stream (Anthropic's event: error, OpenAI's data: {"error":…} or
	// the Responses error event, Gemini's {"error":…} chunk) after
	// ErrorAfter text chunks, and the stream ends there. StreamErrorType
	// is its type ("overloaded_error", "server_error"; "" picks the
	// vendor's overloaded or server error).
	StreamError     string
	StreamErrorType string
	ErrorAfter      int
	// StallAfter > 0 stops sending after that many text chunks and holds
	// the connection open, sending nothing, until the client goes away: a
	// stream that stalls.
	StallAfter int
	// Hold, when set, pauses the stream after HoldAfter text chunks until
	// it is closed (or the client goes away): a test decides when a slow
	// answer goes on, instead of racing its pace on a loaded machine.
	Hold      <-chan struct{}
	HoldAfter int
	// Delay waits before the response headers.
	Delay time.Duration
	// ChunkDelay waits before each text chunk.
	ChunkDelay time.Duration
	// Raw, when non-nil, is sent verbatim as a 200 text/event-stream body
	// instead of the generated events (for fuzzing the adapters' parsers).
	Raw []byte
	// FinishReason overrides the vendor's normal end reason ("stop",
	// "end_turn", "STOP") when set, e.g. "length", "max_tokens", "MAX_TOKENS";
	// for the Responses API "max_output_tokens" or "content_filter" end the
	// response as incomplete and "failed" with response.failed.
	FinishReason string
	// Refusal, when set, is streamed the vendor's refusal way (OpenAI
	// delta.refusal or response.refusal.delta, Anthropic stop_reason
	// refusal) after the text chunks.
	Refusal string
	// BlockReason, for Gemini, answers with promptFeedback.blockReason and
	// no candidate.
	BlockReason string
	// Models answers a GET of the vendor's model list.
	Models []string
	// ToolCalls are streamed after the text as the vendor's tool calls
	// (tools.go), each call's arguments in pieces of ArgChunk bytes (0:
	// whole, in one event), and the answer ends with the vendor's tool-use
	// reason unless FinishReason says otherwise.
	ToolCalls []providers.ToolCall
	ArgChunk  int
	// Sources and SearchCalls answer a server-side web search the vendor's
	// way (OpenAI url_citation annotations and web_search_call items,
	// Anthropic server_tool_use and web_search_tool_result blocks with
	// citations, Gemini groundingMetadata).
	Sources     []providers.Source
	SearchCalls int
	// Replay is vendor state the answer carries for the next request
	// (Anthropic thinking block signature, Responses reasoning item id).
	Replay string
}

// Request is one request a fake received, decoded the vendor's way.
type Request struct {
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	Model  string
	// System is the system prompt (OpenAI system/developer messages,
	// Anthropic's system field, Gemini's systemInstruction), texts joined
	// with "\n" when there are several.
	System string
	// Messages with roles user and assistant (Gemini's "model" is mapped to
	// assistant), each message's text parts joined.
	Messages []providers.Message
	// JSON is the whole body decoded into a generic map (nil when the body
	// is not a JSON object).
	JSON map[string]any
}

// Server is a running fake; it is closed by the test's cleanup.
type Server struct {
	// URL is the base URL to configure: ends in /v1 for OpenAI, is the bare
	// host for Anthropic and Gemini (their SDKs add /v1 and /v1beta).
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	requests []Request
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Close stops the server; the test's cleanup calls it too, so calling it
// early (to simulate a server that went away) is fine.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

// Sequence answers the nth request with the nth reply; the last reply
// repeats for any request after that.
func Sequence(replies ...Reply) func(Request) Reply {
	var mu sync.Mutex
	next := 0
	return func(Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return Reply{}
		}
		r := replies[min(next, len(replies)-1)]
		next++
		return r
	}
}

// vendor is what differs between the fakes.
type vendor interface {
	// decode fills Model, System and Messages from the request.
	decode(r *http.Request, req *Request)
	// badKey reports whether the request carries BadKey.
	badKey(r *http.Request) bool
	// authError writes the vendor's answer to a bad key.
	authError(w http.ResponseWriter)
	// errorBody renders an error response for a status and message.
	errorBody(status int, message, retryAfter string) string
	// stream writes the SSE events of a successful reply, text chunks
	// through ev.chunk so CutAfter and ChunkDelay apply.
	stream(ev *eventWriter, req Request, reply Reply, chunks []string)
	// modelList renders the vendor's answer to GET .../models.
	modelList(ids []string) string
	// streamError writes the vendor's error event inside a stream.
	streamError(ev *eventWriter, req Request, reply Reply)
}

func newServer(t testing.TB, v vendor, suffix string, h func(Request) Reply) *Server {
	t.Helper()
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := Request{
			Path:   r.URL.Path,
			Query:  r.URL.Query(),
			Header: r.Header.Clone(),
			Body:   body,
		}
		var generic map[string]any
		if json.Unmarshal(body, &generic) == nil {
			req.JSON = generic
		}
		v.decode(r, &req)
		s.record(req)

		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			if v.badKey(r) {
				v.authError(w)
				return
			}
			reply := Reply{}
			if h != nil {
				reply = h(req)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, v.modelList(reply.Models))
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if v.badKey(r) {
			v.authError(w)
			return
		}
		reply := Reply{}
		if h != nil {
			reply = h(req)
		}
		serve(w, r, v, req, reply)
	}))
	s.URL = s.srv.URL + suffix
	t.Cleanup(s.srv.Close)
	return s
}

func serve(w http.ResponseWriter, r *http.Request, v vendor, req Request, reply Reply) {
	if !sleep(r.Context(), reply.Delay) {
		return
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		body := reply.ErrorBody
		if body == "" {
			msg := reply.Text
			if msg == "" {
				msg = http.StatusText(reply.Status)
			}
			body = v.errorBody(reply.Status, msg, reply.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, body)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	if reply.Raw != nil {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(reply.Raw)
		return
	}
	w.WriteHeader(http.StatusOK)
	ev := &eventWriter{w: w, ctx: r.Context(), reply: reply}
	ev.flush()
	chunks := reply.Chunks
	if chunks == nil {
		chunks = SplitWords(reply.Text)
	}
	v.stream(ev, req, reply, chunks)
	if ev.failed {
		ev.failed = false // the error event itself may be written
		v.streamError(ev, req, reply)
		return
	}
	if ev.cut {
		// Abort the connection: the chunked body never ends, which clients
		// see as an unexpected EOF, like a dropped connection mid-answer.
		panic(http.ErrAbortHandler)
	}
}

// eventWriter writes SSE events and counts text chunks for CutAfter.
type eventWriter struct {
	w     http.ResponseWriter
	ctx   context.Context
	reply Reply
	sent  int  // text chunks written
	cut   bool // CutAfter reached: the caller must abort
	ended bool // EndAfter reached: nothing more is written
	// failed: ErrorAfter reached with StreamError set: the caller sends
	// the vendor's error event and ends.
	failed bool
	gone   bool // client went away or a write failed
}

// event writes one SSE event (name may be empty) and flushes it.
func (e *eventWriter) event(name string, data any) bool {
	if e.cut || e.gone || e.failed || e.ended {
		return false
	}
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	raw, ok := data.(string)
	if !ok {
		enc, _ := json.Marshal(data)
		raw = string(enc)
	}
	b.WriteString("data: " + raw + "\n\n")
	if _, err := io.WriteString(e.w, b.String()); err != nil {
		e.gone = true
		return false
	}
	e.flush()
	return true
}

// chunk writes a text-carrying event, honouring ChunkDelay and CutAfter.
// It reports false when the stream must stop.
func (e *eventWriter) chunk(name string, data any) bool {
	if e.cut || e.gone || e.failed || e.ended {
		return false
	}
	if e.reply.StreamError != "" && e.sent >= e.reply.ErrorAfter {
		e.failed = true
		return false
	}
	if !sleep(e.ctx, e.reply.ChunkDelay) {
		e.gone = true
		return false
	}
	if !e.event(name, data) {
		return false
	}
	e.sent++
	if e.reply.Hold != nil && e.sent == e.reply.HoldAfter {
		select {
		case <-e.reply.Hold:
		case <-e.ctx.Done():
			e.gone = true
			return false
		}
	}
	if e.reply.StallAfter > 0 && e.sent >= e.reply.StallAfter {
		<-e.ctx.Done()
		e.gone = true
		return false
	}
	if e.reply.CutAfter > 0 && e.sent >= e.reply.CutAfter {
		e.cut = true
		return false
	}
	if e.reply.EndAfter > 0 && e.sent >= e.reply.EndAfter {
		e.ended = true
		return false
	}
	return true
}

// ok reports whether the final events may still be written.
func (e *eventWriter) ok() bool { return !e.cut && !e.gone && !e.failed && !e.ended }

func (e *eventWriter) flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// SplitWords splits text into chunks that each start at a word (the space
// before a word travels with it), so joining them gives text back.
func SplitWords(text string) []string {
	if text == "" {
		return nil
	}
	var chunks []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			chunks = append(chunks, text[start:i])
			start = i
		}
	}
	return append(chunks, text[start:])
}

// textOf extracts the text of a content value that is either a string or
// a list of parts with a "text" field.
func textOf(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "")
	}
	return ""
}

func stringField(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
