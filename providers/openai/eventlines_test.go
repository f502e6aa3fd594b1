package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// readAll reads every event of body with eventLines: the data, and the
// error that ended it.
func readAll(body string) (data []string, err error) {
	l := newEventLines(strings.NewReader(body))
	for {
		d, err := l.next()
		if err != nil {
			return data, err
		}
		data = append(data, string(d))
	}
}

func TestEventLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100<<10) // longer than the reader's buffer
	cases := []struct {
		name, body string
		data       []string
		err        error  // nil: wantMsg names the API error
		wantMsg    string // the *openai.APIError's message
	}{
		{name: "responses events", body: "event: response.created\ndata: {\"a\":1}\n\nevent: response.output_text.delta\ndata:{\"b\":2}\n\n",
			data: []string{`{"a":1}`, `{"b":2}`}, err: io.EOF},
		{name: "comments and CRLF", body: ": OPENROUTER PROCESSING\r\n\r\ndata: \t{\"c\":3}  \r\n\r\n", data: []string{`{"c":3}`}, err: io.EOF},
		{name: "done ends it", body: "data: {\"a\":1}\n\ndata: [DONE]\n\ndata: {\"after\":1}\n\n", data: []string{`{"a":1}`}, err: io.EOF},
		{name: "a cut last line is dropped", body: "data: {\"a\":1}\n\ndata: {\"cut", data: []string{`{"a":1}`}, err: io.EOF},
		{name: "a long line", body: "data: \"" + long + "\"\n\n", data: []string{`"` + long + `"`}, err: io.EOF},
		{name: "an error mid-stream", body: "data: {\"a\":1}\n\ndata: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\ndata: {\"b\":2}\n\n",
			data: []string{`{"a":1}`}, wantMsg: "overloaded"},
		{name: "a JSON error body", body: "{\n  \"error\": {\n    \"message\": \"model not found\",\n    \"type\": \"invalid_request_error\"\n  }\n}\n",
			wantMsg: "model not found"},
		{name: "event names at the end are no error", body: "event: a\n\nevent: b\n", err: io.EOF},
	}
	for _, c := range cases {
		data, err := readAll(c.body)
		if strings.Join(data, "|") != strings.Join(c.data, "|") {
			t.Errorf("%s: data %.80q, want %.80q", c.name, data, c.data)
		}
		if c.wantMsg != "" {
			var apiErr *openai.APIError
			if !errors.As(err, &apiErr) || apiErr.Message != c.wantMsg {
				t.Errorf("%s: error %v, want the API error %q", c.name, err, c.wantMsg)
			}
			continue
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
		}
	}
}

// A server that sends nothing but keep-alives is given up on, and what is
// kept of the lines skipped stays bounded however long the stream.
func TestEventLinesSkippedLinesAreBounded(t *testing.T) {
	t.Parallel()
	_, err := readAll(strings.Repeat(": keep-alive\n", maxSkippedLines+1))
	if !errors.Is(err, openai.ErrTooManyEmptyStreamMessages) {
		t.Errorf("%d keep-alives in a row: %v, want ErrTooManyEmptyStreamMessages", maxSkippedLines+1, err)
	}
	l := newEventLines(strings.NewReader(strings.Repeat("event: response.output_text.delta\ndata: {}\n\n", 20_000)))
	for {
		if _, err := l.next(); err != nil {
			break
		}
	}
	if l.skipped.Len() > maxErrorBody {
		t.Errorf("kept %d bytes of skipped lines, want at most %d", l.skipped.Len(), maxErrorBody)
	}
	if l.skipped.Len() < maxErrorBody-64 {
		t.Errorf("kept %d bytes of skipped lines; the bound was not reached, so this test shows nothing", l.skipped.Len())
	}
}

// A server that never ends a line is cut off at maxLine, not read on until
// the memory runs out.
func TestEventLinesBoundALine(t *testing.T) {
	t.Parallel()
	endless := io.MultiReader(strings.NewReader("data: \""), neverEnding('x'))
	_, err := newEventLines(endless).next()
	if !errors.Is(err, errLineTooLong) {
		t.Errorf("a line that never ends: %v, want errLineTooLong", err)
	}
	if _, err := readAll("data: \"" + strings.Repeat("x", maxLine-16) + "\"\n"); !errors.Is(err, io.EOF) {
		t.Errorf("a line just under the bound: %v, want it read", err)
	}
}

// neverEnding reads as its byte forever.
type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// FuzzEventLines holds eventLines to go-openai's own stream reader, which
// Parley used before: over real HTTP, both read the same data from any
// body, and end it alike (the end of the stream, or an error). Bodies with
// an error object are left out: eventLines reads the error line alone where
// the SDK joined it to every line skipped before it, and answers a
// malformed one with an error of its own (TestEventLines covers them).
func FuzzEventLines(f *testing.F) {
	for _, seed := range []string{
		"event: response.created\ndata: {\"a\":1}\n\n",
		": ping\r\n\r\ndata:{\"b\":2}\r\n\r\ndata: [DONE]\n\n",
		"data: {\"cut",
		"  data:   x  \n\ndata:\n\nDATA: y\n",
		"{\n\"message\": 1\n}\n",
	} {
		f.Add(seed)
	}
	var mu sync.Mutex
	var current string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body := current
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	f.Cleanup(srv.Close)
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = srv.URL
	cfg.EmptyMessagesLimit = maxSkippedLines
	client := openai.NewClientWithConfig(cfg)
	f.Fuzz(func(t *testing.T, body string) {
		if strings.Contains(body, `"error"`) {
			return
		}
		mu.Lock()
		current = body
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stream, err := client.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		var want []string
		var wantErr error
		for {
			d, err := stream.RecvRaw()
			if ctx.Err() != nil {
				t.Fatalf("%q: the SDK's reader still reading after 10 s", body)
			}
			if err != nil {
				wantErr = err
				break
			}
			want = append(want, string(d))
		}
		got, err := readAll(body)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("%q: read %q, the SDK %q", body, got, want)
		}
		if errors.Is(err, io.EOF) != errors.Is(wantErr, io.EOF) {
			t.Fatalf("%q: ended with %v, the SDK with %v", body, err, wantErr)
		}
	})
}
