package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// maxMCPBody bounds what serve reads of an /mcp POST before the MCP door
// sees it (the MCP door checks its own frame limit after this).
const maxMCPBody = 4 << 20

// serveMCP is the /mcp route. Every tool call draws from the same budget as
// the API's requests that start work — per client address, per credential
// and per user (X-Parley-User or ?user_id=) — so a client cannot go around
// the API's rate by asking through MCP; other messages (initialize, lists,
// notifications) start no work and cost nothing. Every request that holds
// a stream (the SDK's GET stream, a tool call answered as a stream while it
// runs) takes a place among the open event streams, under the same caps as
// the API's.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) error {
	work, err := mcpCallsTool(w, r)
	if err != nil {
		return err
	}
	if work {
		// The spend windows answer inside the tool call (a tool error).
		if err := s.rateLimit(w, r, userOf(r)); err != nil {
			return err
		}
	}
	if work || r.Method == http.MethodGet {
		release := s.streams.open(w, credentialOf(r))
		if release == nil {
			return nil
		}
		defer release()
	}
	s.opts.MCP.ServeHTTP(w, r)
	return nil
}

// mcpCallsTool reads a POST's body (bounded, and put back for the MCP door)
// and says whether it calls a tool.
func mcpCallsTool(w http.ResponseWriter, r *http.Request) (bool, error) {
	if r.Method != http.MethodPost || r.Body == nil {
		return false, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return false, errorf(http.StatusRequestEntityTooLarge, "too_large", "the MCP message is larger than %d bytes", maxMCPBody)
		}
		return false, errorf(http.StatusBadRequest, "bad_body", "the MCP message could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return startsWork(body), nil
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
