package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parleyhq/parley/debate/sanitize"
)

// LineTransport is newline-delimited JSON-RPC over a reader and a writer
// (stdin and stdout for parley mcp) that no client line can end: each line
// goes through checkFrame, a bad one gets its error reply and the next line
// is read; a line over MaxFrameBytes is skipped to its end, never held
// whole. The SDK's own stdio transport ends the session on the first
// malformed line.
type LineTransport struct {
	In  io.Reader
	Out io.Writer
	// Frames, when set, counts the lines read and the lines refused.
	Frames *FrameCount
}

// FrameCount counts what a LineTransport read.
type FrameCount struct {
	mu            sync.Mutex
	read, refused int
}

// Counts are the lines read and, of them, the lines refused.
func (c *FrameCount) Counts() (read, refused int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read, c.refused
}

func (c *FrameCount) add(refused *jsonrpc.Response) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read++
	if refused != nil {
		c.refused++
	}
}

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.Out, incoming: make(chan jsonrpc.Message), closed: make(chan struct{}), count: t.Frames}
	go c.readLines(bufio.NewReaderSize(t.In, 64<<10))
	return c, nil
}

type lineConn struct {
	writeMu  sync.Mutex
	out      io.Writer
	incoming chan jsonrpc.Message
	readErr  error // set before incoming is closed
	closed   chan struct{}
	once     sync.Once
	count    *FrameCount
}

// readLines reads the client's lines until the input ends, answering the
// refused ones itself and handing the rest to Read.
func (c *lineConn) readLines(r *bufio.Reader) {
	defer close(c.incoming)
	for {
		line, tooLong, err := readLine(r, MaxFrameBytes)
		if len(line) > 0 || tooLong {
			msg, refused := checkFrame(line)
			if tooLong {
				msg, refused = nil, refusal(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is over the limit of %d bytes", MaxFrameBytes))
			}
			c.count.add(refused)
			if refused != nil {
				if c.write(refused) != nil {
					c.readErr = io.ErrClosedPipe
					return
				}
			} else if msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine reads one line without its newline; past limit bytes it keeps
// reading to the newline but returns tooLong and no bytes.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+2 { // +2: the \r\n ending
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			line = nil
		}
		return line, tooLong, err
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.incoming:
		if !ok {
			if c.readErr == nil || errors.Is(c.readErr, io.EOF) {
				return nil, io.EOF
			}
			return nil, c.readErr
		}
		return msg, nil
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.write(cleanReply(msg))
}

// write sends one message as one line, whole: replies from the reader and
// the SDK never interleave.
func (c *lineConn) write(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			return err
		}
		data, err = jsonrpc.EncodeMessage(refusal(resp.ID, jsonrpc.CodeInternalError, "the reply could not be encoded"))
		if err != nil {
			return err
		}
	}
	data = sanitize.EscapeJSON(data) // C1 and bidi leave as \u escapes, as every door's JSON
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.out.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }

// checkBodies refuses, with its JSON-RPC error and 400, a POST body that
// checkFrame refuses, so the SDK never sees it; the rest pass unchanged.
func checkBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxFrameBytes))
		var refused *jsonrpc.Response
		var msg jsonrpc.Message
		switch {
		case err != nil:
			refused = refusal(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is over the limit of %d bytes", MaxFrameBytes))
		case len(bytes.TrimSpace(body)) == 0:
			refused = refusal(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the body is empty")
		default:
			msg, refused = checkFrame(body)
		}
		if refused != nil {
			data, _ := jsonrpc.EncodeMessage(refused)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(append(data, '\n'))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
		if call, ok := msg.(*jsonrpc.Request); ok && call.Method == "tools/call" && call.ID.IsValid() && r.Context().Err() != nil {
			cancelDropped(next, r, call.ID)
		}
	})
}

// cancelDropped cancels a tool call whose client dropped the connection
// of its POST before the answer: the SDK keeps such a call running for a
// resumption that may never come, so its model calls would go on, billed,
// for nobody (a client that does resume replays up to the cancelled result). The call is cancelled the way a
// client would, with notifications/cancelled on its MCP session, so the
// engine saves the unfinished turns cancelled with their text.
func cancelDropped(next http.Handler, r *http.Request, id jsonrpc.ID) {
	params, err := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": "the client's connection closed"})
	if err != nil {
		return
	}
	body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":` + string(params) + `}`
	cancel := r.Clone(context.WithoutCancel(r.Context()))
	cancel.Body = io.NopCloser(strings.NewReader(body))
	cancel.ContentLength = int64(len(body))
	next.ServeHTTP(discard{}, cancel)
}

// discard is a ResponseWriter nobody reads: the answer to a notification
// sent on a client's behalf.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
