package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/parleyhq/parley/debate/sanitize"
)

// Limits on what a client may send, one JSON-RPC message a line (stdio) or
// a request body (HTTP). A message past them is refused with an error
// reply; the server goes on.
const (
	// MaxFrameBytes bounds one message: the longest question a client
	// sends is far below it.
	MaxFrameBytes = 4 << 20
	// maxDepth bounds the nesting of one message: no tool argument nests
	// deeper than a few levels.
	maxDepth = 64
)

// checkFrame reads one message a client sent. It returns the message, or
// the error reply it deserves (-32700 for a line that is not JSON, -32600
// for JSON that is not one JSON-RPC 2.0 message, -32602 for a resource URI
// with control characters); both nil for a blank line.
func checkFrame(line []byte) (jsonrpc.Message, *jsonrpc.Response) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil, nil
	case len(line) > MaxFrameBytes:
		return nil, refusal(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is %d bytes, over the limit of %d bytes", len(line), MaxFrameBytes))
	case !json.Valid(line):
		return nil, refusal(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the message is not valid JSON")
	case depth(line) > maxDepth:
		return nil, refusal(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message nests deeper than %d levels", maxDepth))
	case line[0] == '[':
		return nil, refusal(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "batches are not supported: send one JSON-RPC message a line")
	case line[0] != '{':
		return nil, refusal(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "a JSON-RPC message is a JSON object")
	}
	var head struct {
		Version *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  struct {
			URI json.RawMessage `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal(line, &head) // params of another shape: the SDK answers those
	id, idErr := idOf(head.ID)
	switch {
	case idErr != nil:
		return nil, refusal(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "id must be a string, a number or absent")
	case head.Version == nil || *head.Version != "2.0":
		return nil, refusal(id, jsonrpc.CodeInvalidRequest, `jsonrpc must be "2.0"`)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, refusal(id, jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 request, notification or response")
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "resources/read" {
		var uri string
		if json.Unmarshal(head.Params.URI, &uri) == nil && hasControl(uri) {
			return nil, refusal(id, jsonrpc.CodeInvalidParams, "uri: a resource URI has no control characters; session resources are parley://sessions/ID")
		}
	}
	return msg, nil
}

// idOf is a message's id: a string, a number, or none (null or absent).
func idOf(raw json.RawMessage) (jsonrpc.ID, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	if f, ok := v.(float64); ok && f != float64(int64(f)) {
		return jsonrpc.ID{}, fmt.Errorf("id %v is not an integer", f)
	}
	return jsonrpc.MakeID(v)
}

// depth is the deepest nesting of arrays and objects in valid JSON.
func depth(data []byte) int {
	most, d, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || sanitize.Invisible(r) {
			return true
		}
	}
	return false
}

// refusal is the error reply to a message the server refuses.
func refusal(id jsonrpc.ID, code int64, message string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message}}
}

// cleanReply makes a reply safe to send whatever the SDK or a handler put
// in its error: the message without control characters, the data valid
// JSON with clean strings (the SDK's resource-not-found error quotes the
// URI with Go's %q, which is not JSON when it holds a NUL), or dropped.
func cleanReply(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return msg
	}
	wire, ok := resp.Error.(*jsonrpc.Error)
	if !ok {
		return &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: oneLine(resp.Error.Error())}}
	}
	clean := &jsonrpc.Error{Code: wire.Code, Message: oneLine(wire.Message)}
	var data any
	if len(wire.Data) > 0 && json.Unmarshal(wire.Data, &data) == nil {
		if b, err := json.Marshal(cleanStrings(data)); err == nil {
			clean.Data = b
		}
	}
	return &jsonrpc.Response{ID: resp.ID, Error: clean}
}

// oneLine is text for an error: no control characters, no line breaks.
func oneLine(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(sanitize.Text(s))), []byte(" ")))
}

// cleanStrings sanitises every string inside a decoded JSON value.
func cleanStrings(v any) any {
	switch v := v.(type) {
	case string:
		return oneLine(v)
	case []any:
		for i := range v {
			v[i] = cleanStrings(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[oneLine(k)] = cleanStrings(x)
		}
		return out
	}
	return v
}
