package mcp_test

import (
	"context"
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
