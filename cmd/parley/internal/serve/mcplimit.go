package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// maxMCPBody bounds what the limiter reads of an /mcp POST before the MCP
// handler sees it (the MCP door checks its own frame limit after this).
const maxMCPBody = 4 << 20

// limitMCP draws every /mcp tool call from the same budget as the API's
// requests that start work: per client address, per credential and per
// user (X-Parley-User or ?user_id=), so a client cannot bypass the API's
// rate by asking through MCP. Other MCP messages (initialize, lists,
// notifications) cost nothing: they start no work.
func (s *Server) limitMCP(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost || r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, "too_large", "the MCP message is larger than %d bytes", maxMCPBody)
		}
		return errorf(http.StatusBadRequest, "bad_body", "the MCP message could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !startsWork(body) {
		return nil
	}
	return s.limit(w, r, userOf(r))
}

// startsWork says whether an MCP message calls a tool. A body that is not
// one JSON object passes: the MCP door answers it with its JSON-RPC error.
func startsWork(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	return msg.Method == "tools/call"
}
