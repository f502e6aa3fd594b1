package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/sanitize/sanitizetest"
	"github.com/parleyhq/parley/providers/providertest"
)

// rawPost sends one JSON-RPC message to /mcp as a client at protocol
// version would, and returns the reply and its body.
func rawPost(t *testing.T, ts *httptest.Server, session, version, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// rawSession initializes an MCP session over raw HTTP at version.
func rawSession(t *testing.T, ts *httptest.Server, version string) (session, initBody string) {
	t.Helper()
	resp, body := rawPost(t, ts, "", version, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	session = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, session, body)
	}
	rawPost(t, ts, session, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return session, body
}

// A POST's SSE stream opens with a priming event (an id, empty data) and
// a retry field, as MCP 2025-11-25 asks (transports §2.1.5-6; the
// official conformance suite flags their absence), before the reply.
func TestMCPPostStreamIsPrimedWithIDAndRetry(t *testing.T) {
	t.Parallel()
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true)
	session, initBody := rawSession(t, ts, "2025-11-25")
	for what, body := range map[string]string{"initialize": initBody} {
		checkPrimed(t, what, body)
	}
	resp, body := rawPost(t, ts, session, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"question":"@gemini hi"}}}`)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("tools/call answered %s, not an event stream", resp.Header.Get("Content-Type"))
	}
	checkPrimed(t, "tools/call", body)
}

// checkPrimed: the stream's first event has an id, a retry field and
// empty data; a later one carries the reply.
func checkPrimed(t *testing.T, what, body string) {
	t.Helper()
	events := strings.Split(body, "\n\n")
	fields := map[string]string{}
	for line := range strings.SplitSeq(events[0], "\n") {
		k, v, _ := strings.Cut(line, ":")
		fields[k] = strings.TrimSpace(v)
	}
	if fields["id"] == "" || fields["retry"] == "" || fields["data"] != "" || len(events) < 2 || !strings.Contains(body, `"result"`) {
		t.Fatalf("%s stream does not open with a priming event (id, retry, empty data):\n%s", what, body)
	}
}

// A model's C1 control and bidi override leave /mcp's replies (JSON and
// SSE data) only as \u escapes, as at every door, and decode whole.
func TestMCPOverHTTPEscapesC1AndBidi(t *testing.T) {
	t.Parallel()
	answer := "ok" + strings.Join(sanitizetest.RawInJSON, "x") + "done"
	env, _ := fakeVendors(t, func(providertest.Request) (providertest.Reply, bool) {
		return providertest.Reply{Text: answer}, true
	})
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), fakeAgents(env), false)
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		session, _ := rawSession(t, ts, version)
		_, body := rawPost(t, ts, session, version, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"question":"@chatgpt hi"}}}`)
		for _, raw := range sanitizetest.RawInJSON {
			if strings.Contains(body, raw) {
				t.Fatalf("%s: /mcp reply carries %q raw:\n%s", version, raw, body)
			}
		}
		whole := false
		for line := range strings.SplitSeq(body, "\n") {
			var msg struct {
				Result struct{ StructuredContent json.RawMessage } `json:"result"`
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if ok && json.Unmarshal([]byte(data), &msg) == nil {
				var v any
				_ = json.Unmarshal(msg.Result.StructuredContent, &v)
				b, _ := json.Marshal(v)
				whole = whole || strings.Contains(string(b), answer)
			}
		}
		if !whole {
			t.Fatalf("%s: no reply decodes to the answer %q:\n%s", version, answer, body)
		}
	}
}
