package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
)

// sessionURI is the resource address of saved session id.
const sessionURI = "parley://sessions/"

// SessionsListInput is the sessions_list tool's arguments.
type SessionsListInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"sessions per page, 1 to 500 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// SessionsList is one page of the saved sessions, most recently active first.
type SessionsList struct {
	Sessions   []store.Summary `json:"sessions"`
	NextCursor string          `json:"next_cursor" jsonschema:"empty on the last page"`
}

func (s *Server) sessionsList(ctx context.Context, _ *mcp.CallToolRequest, in SessionsListInput) (*mcp.CallToolResult, SessionsList, error) {
	limit, err := pageSize(in.Limit, 50, 500)
	if err != nil {
		return nil, SessionsList{}, err
	}
	offset, err := parseCursor(in.Cursor)
	if err != nil {
		return nil, SessionsList{}, err
	}
	all, err := s.opts.Store.List(ctx)
	if err != nil {
		return nil, SessionsList{}, err
	}
	page := all[min(offset, len(all)):]
	out := SessionsList{Sessions: []store.Summary{}}
	if len(page) > limit {
		page = page[:limit]
		out.NextCursor = cursorAt(offset + limit)
	}
	out.Sessions = append(out.Sessions, page...)
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d sessions", len(page), len(all))
	for _, sum := range page {
		fmt.Fprintf(&b, "\n%s  %-9s  %3d turns  %s  %s", sum.ID, sum.Mode, sum.Turns, sum.CostText(), clean(sum.Title))
	}
	if out.NextCursor != "" {
		b.WriteString("\nmore: call again with cursor " + out.NextCursor)
	}
	return textResult(b.String()), out, nil
}

// cursorAt is the cursor of the page that starts at offset.
func cursorAt(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset)))
}

// parseCursor reads a cursor cursorAt gave ("" : the first page).
func parseCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	n, err2 := strconv.Atoi(string(b))
	if err != nil || err2 != nil || n < 0 {
		return 0, fmt.Errorf("cursor: %q is not a cursor this server gave", c)
	}
	return n, nil
}

// SessionGetInput is the session_get tool's arguments.
type SessionGetInput struct {
	ID    string `json:"id" jsonschema:"session ID (a unique prefix is enough)"`
	After int    `json:"after,omitempty" jsonschema:"return entries after this turn (default 0: from the start)"`
	Limit int    `json:"limit,omitempty" jsonschema:"entries per page, 1 to 1000 (default 200)"`
}

// SessionDetail is a saved session and a page of its entries.
type SessionDetail struct {
	Session   debate.SessionInfo `json:"session"`
	Entries   []transcript.Entry `json:"entries" jsonschema:"in turn order"`
	NextAfter int                `json:"next_after" jsonschema:"pass as after for the next page; 0 on the last page"`
	Resource  string             `json:"resource" jsonschema:"the session as Markdown: parley://sessions/ID"`
}

func (s *Server) sessionGet(ctx context.Context, _ *mcp.CallToolRequest, in SessionGetInput) (*mcp.CallToolResult, SessionDetail, error) {
	limit, err := pageSize(in.Limit, 200, 1000)
	if err != nil {
		return nil, SessionDetail{}, err
	}
	id, err := s.opts.Store.Resolve(ctx, strings.TrimSpace(in.ID))
	if err != nil {
		return nil, SessionDetail{}, sessionErr(in.ID, err)
	}
	info, entries, err := s.opts.Store.Load(ctx, id)
	if err != nil {
		return nil, SessionDetail{}, err
	}
	out := SessionDetail{Session: info, Entries: []transcript.Entry{}, Resource: sessionURI + id}
	for _, en := range entries {
		if en.Turn <= in.After {
			continue
		}
		if len(out.Entries) == limit {
			out.NextAfter = out.Entries[len(out.Entries)-1].Turn
			break
		}
		out.Entries = append(out.Entries, wireEntry(en))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s · %s · %s", id, info.Mode, clean(info.Title))
	for _, en := range out.Entries {
		fmt.Fprintf(&b, "\n\n#%d %s [%s] %s", en.Turn, en.Kind, clean(en.Display), en.Status)
		if t := strings.TrimSpace(en.Text); t != "" {
			b.WriteString("\n" + clean(t))
		}
	}
	if out.NextAfter > 0 {
		fmt.Fprintf(&b, "\n\nmore: call again with after %d", out.NextAfter)
	}
	return textResult(b.String()), out, nil
}

// wireEntry gives an entry's maps their empty value: the schema says object.
func wireEntry(en transcript.Entry) transcript.Entry {
	for i, c := range en.ToolCalls {
		if c.Parameters == nil {
			en.ToolCalls[i].Parameters = map[string]string{}
		}
	}
	return en
}

// pageSize is n within 1..most, def when 0.
func pageSize(n, def, most int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > most:
		return 0, fmt.Errorf("limit: %d is not between 1 and %d", n, most)
	}
	return n, nil
}

// --- resources ----------------------------------------------------------------

// addResources offers every saved session as parley://sessions/ID, and the
// template for any session ID (sessions saved later, by other processes).
func (s *Server) addResources(ctx context.Context) error {
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "session", Title: "A saved Parley session",
		URITemplate: sessionURI + "{id}", MIMEType: "text/markdown",
		Description: "The session as Markdown: the same export as parley sessions export ID"}, s.readSession)
	all, err := s.opts.Store.List(ctx)
	if err != nil {
		return err
	}
	for _, sum := range all {
		s.listSession(debate.SessionInfo{ID: sum.ID, Title: sum.Title, Mode: sum.Mode})
	}
	return nil
}

// listSession adds a session to the resource list once.
func (s *Server) listSession(info debate.SessionInfo) {
	s.mu.Lock()
	known := s.listed[info.ID]
	s.listed[info.ID] = true
	s.mu.Unlock()
	if known {
		return
	}
	title := clean(info.Title)
	if title == "" {
		title = info.ID
	}
	s.srv.AddResource(&mcp.Resource{URI: sessionURI + info.ID, Name: info.ID, Title: title, MIMEType: "text/markdown",
		Description: info.Mode + " session"}, s.readSession)
}

// sessionRef is the session ID (or prefix) a parley://sessions/ID names.
func sessionRef(uri string) (string, bool) {
	ref, ok := strings.CutPrefix(uri, sessionURI)
	if !ok || ref == "" || strings.ContainsAny(ref, "/?#%") || len(ref) > 64 {
		return "", false
	}
	return ref, true
}

// readSession is a session's Markdown export.
func (s *Server) readSession(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	ref, ok := sessionRef(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, err := s.opts.Store.Resolve(ctx, ref)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var b strings.Builder
	if err := s.opts.Store.Export(ctx, &b, id, "md"); err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: b.String()}}}, nil
}
