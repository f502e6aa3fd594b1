package mcp_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const serveToken = "mcp-test-token-0123456789"

// bearer adds the server token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestMCPOverHTTPNeedsTheServersToken(t *testing.T) {
	t.Parallel()
	ts, _ := httpServerWithToken(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true, serveToken)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	anonymous := mcp.NewClient(&mcp.Implementation{Name: "anonymous", Version: "1"}, nil)
	if s, err := anonymous.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil); err == nil {
		_ = s.Close()
		t.Fatal("connected to /mcp without the token")
	}
	c := connect(t, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{serveToken}}})
	if _, err := c.session.ListTools(ctx, nil); err != nil {
		t.Fatalf("with the token: %v", err)
	}
}

func TestMCPOverHTTPRefusesForeignHostsAndOrigins(t *testing.T) {
	t.Parallel()
	ts, _ := httpServerWithToken(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true, serveToken)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		header map[string]string
		host   string
		want   int
	}{
		{"rebinding host", nil, "evil.example", http.StatusForbidden},
		{"cross-site page", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, "", http.StatusForbidden},
		{"no token", map[string]string{"Authorization": ""}, "", http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, "", http.StatusUnauthorized},
		{"the client", nil, "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+serveToken)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// A NUL in a resource URI over HTTP gets its error and the client's MCP
// session goes on (issue 31: it then answered every request with an empty
// 200); a body that is not JSON gets -32700.
func TestMCPOverHTTPRefusesBadBodiesAndGoesOn(t *testing.T) {
	t.Parallel()
	ts, _ := httpServerWithToken(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true, serveToken)
	post := func(session, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+serveToken)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
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
	resp, _ := post("", initLine)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct{ body, code string }{
		{`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"parley://sessions/e\u0000"}}`, "-32602"},
		{`not json`, "-32700"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "-32600"},
	} {
		resp, body := post(session, tc.body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"code":`+tc.code) {
			t.Errorf("%s: %d %s, want 400 with %s", tc.body, resp.StatusCode, body, tc.code)
		}
	}
	resp, body := post(session, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Fatalf("ping after the refusals: %d %q", resp.StatusCode, body)
	}
}
