package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	openai "github.com/sashabaranov/go-openai"
)

// Why Parley reads the stream's lines itself: go-openai's stream reader runs
// two regular expressions and a replacement over every line (three lines an
// event on the Responses API), allocates each line, and keeps every line
// that is not data — each `event:` line of an answer — in a buffer that
// grows until the stream ends. That was most of what `parley ask` paid a
// token beyond reading the socket (docs/benchmarks.md, "Streaming, round
// 5"). The SDK still builds and sends the request and turns an error status
// into its APIError; once a stream has begun, eventLines reads its body,
// keeping what the SDK's reader did with it:
//
//   - a line that starts with "data:" (white space around it trimmed) is an
//     event's data, the prefix and the white space after it removed;
//   - "data: [DONE]" ends the stream (Chat Completions);
//   - a data line that is an {"error": …} object is the server's error
//     mid-stream, returned as the SDK's *APIError;
//   - the other lines (event names, comments, blank lines) are skipped, and
//     when the body ends they are read as an error object, which is how a
//     server answering 200 with a JSON error says it; more than
//     maxSkippedLines of them in a row is openai.ErrTooManyEmptyStreamMessages;
//   - a last line with no newline is an event cut short and is dropped;
//   - a line over maxLine ends the stream with an error (the SDK read on).
type eventLines struct {
	r       *bufio.Reader
	skipped bytes.Buffer // the lines skipped, trimmed, up to maxErrorBody
	inARow  int          // lines skipped since the last data line
	done    bool         // [DONE] was read
}

const (
	// maxSkippedLines is how many lines in a row may carry no data: proxies
	// such as OpenRouter send keep-alive comments while a model thinks.
	maxSkippedLines = 10_000
	// maxErrorBody bounds what is kept of the skipped lines: an error
	// object is small, and the event names of a long answer are not one.
	maxErrorBody = 64 << 10
	// maxLine bounds one line. The largest events carry a whole answer
	// (response.completed, output_text.done): well under 1 MB for the
	// longest answer a model gives today.
	maxLine = 16 << 20
)

// errLineTooLong ends a stream with a line over maxLine.
var errLineTooLong = fmt.Errorf("the server sent a stream line over %d MB", maxLine>>20)

func newEventLines(body io.Reader) *eventLines {
	return &eventLines{r: bufio.NewReaderSize(body, 32<<10)}
}

var (
	dataPrefix  = []byte("data:")
	donePayload = []byte("[DONE]")
	errorPrefix = []byte(`{"error":`)
)

// next returns the data of the next event, valid until the next call; io.EOF
// at [DONE] or at the end of a body with no error object in it.
func (l *eventLines) next() ([]byte, error) {
	if l.done {
		return nil, io.EOF
	}
	for {
		line, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer (a large event): gather it whole.
			line, err = l.longLine(line)
		}
		if err != nil {
			if apiErr := l.errorBody(); apiErr != nil {
				return nil, fmt.Errorf("error, %w", apiErr)
			}
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if data, ok := bytes.CutPrefix(line, dataPrefix); ok {
			data = bytes.TrimLeft(data, " \t\n\f\r") // the SDK's \s
			if bytes.HasPrefix(data, errorPrefix) {
				var body openai.ErrorResponse
				if json.Unmarshal(data, &body) == nil && body.Error != nil {
					return nil, fmt.Errorf("error, %w", body.Error)
				}
				return nil, fmt.Errorf("a malformed error in the stream: %.200q", data)
			}
			if bytes.Equal(data, donePayload) {
				l.done = true
				return nil, io.EOF
			}
			l.inARow = 0
			return data, nil
		}
		if l.inARow++; l.inARow > maxSkippedLines {
			return nil, openai.ErrTooManyEmptyStreamMessages
		}
		if l.skipped.Len()+len(line) <= maxErrorBody {
			l.skipped.Write(line)
		}
	}
}

// longLine reads the rest of a line that did not fit the buffer, up to
// maxLine: a server that never ends a line must not fill the memory.
func (l *eventLines) longLine(start []byte) ([]byte, error) {
	whole := append([]byte(nil), start...)
	for {
		more, err := l.r.ReadSlice('\n')
		whole = append(whole, more...)
		if len(whole) > maxLine {
			return nil, errLineTooLong
		}
		if err != bufio.ErrBufferFull {
			return whole, err
		}
	}
}

// errorBody reads the skipped lines as an error object: nil when they are
// not one (the event names of a stream that was simply cut).
func (l *eventLines) errorBody() *openai.APIError {
	if l.skipped.Len() == 0 {
		return nil
	}
	var body openai.ErrorResponse
	if json.Unmarshal(l.skipped.Bytes(), &body) != nil {
		return nil
	}
	return body.Error
}

// bodySlot receives the response of the request whose context carries it.
type bodySlot struct{ resp *http.Response }

type bodySlotKey struct{}

// withBodySlot returns a context whose request hands its response to the
// returned slot (bodyDoer).
func withBodySlot(ctx context.Context) (context.Context, *bodySlot) {
	slot := &bodySlot{}
	return context.WithValue(ctx, bodySlotKey{}, slot), slot
}

// lines reads the body of the stream the SDK opened with the slot's
// context.
func (s *bodySlot) lines() (*eventLines, error) {
	if s.resp == nil {
		return nil, errors.New("the SDK opened a stream without a response")
	}
	return newEventLines(s.resp.Body), nil
}

// bodyDoer is go-openai's HTTP client: it sends the request as the SDK
// built it and hands the response the SDK receives to a slot in the
// request's context, if any, so the adapter reads the body of a stream the
// SDK opened (eventLines).
type bodyDoer struct{ client *http.Client }

func (d bodyDoer) Do(r *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(r)
	if err == nil {
		if slot, ok := r.Context().Value(bodySlotKey{}).(*bodySlot); ok {
			slot.resp = resp
		}
	}
	return resp, err
}
