package mcp_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
)

// TestSubscribedSessionIsUpdatedByAnotherProcess: a client of `parley mcp`
// (the built binary) subscribes to a session's resource; `parley ask
// --session` in another process adds a question and its answer; the
// client gets notifications/resources/updated for that URI, and the
// resource then holds the new turns. A URI naming no session is refused.
func TestSubscribedSessionIsUpdatedByAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	ask := func(args ...string) {
		testbin.Run(t, dir, cleanEnv(t), append([]string{"--demo", "--db", db}, args...)...)
	}
	ask("ask", "@chatgpt first question")
	id := testbin.LatestSession(t, db)

	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "parley-test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	cmd := exec.Command(parleyBin(t), "--demo", "--db", db, "mcp")
	cmd.Env, cmd.Dir = cleanEnv(t), dir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if caps := session.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("the server does not offer resource subscriptions: %+v", caps.Resources)
	}
	uri := "parley://sessions/" + id
	if err := session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}

	started := time.Now()
	ask("ask", "--session", id, "@gemini second from ask")
	select {
	case got := <-updated:
		if got != uri {
			t.Fatalf("updated %q, want %q", got, uri)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/resources/updated within 30s of another process adding turns")
	}
	t.Logf("notifications/resources/updated %v after the other process started", time.Since(started).Round(time.Millisecond))
	res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("read: %v %+v", err, res)
	}
	if md := res.Contents[0].Text; !strings.Contains(md, "second from ask") || !strings.Contains(md, "first question") {
		t.Fatalf("the resource after the update lacks the new turns:\n%s", md)
	}
}

// A subscription to a URI that names no saved session is refused (the
// legacy resources/subscribe request, answered at once).
func TestSubscribingToNoSessionIsRefused(t *testing.T) {
	t.Parallel()
	c := startRaw(t)
	c.send(`{"jsonrpc":"2.0","id":"sub","method":"resources/subscribe","params":{"uri":"parley://sessions/nosuchsession"}}`)
	if code, msg := errorCode(c.reply("sub")); code != -32602 || !strings.Contains(msg, "not found") {
		t.Fatalf("subscribing to no session: code %v %q, want -32602 resource not found", code, msg)
	}
	c.send(`{"jsonrpc":"2.0","id":"bad","method":"resources/subscribe","params":{"uri":"file:///etc/passwd"}}`)
	if code, msg := errorCode(c.reply("bad")); code != -32602 {
		t.Fatalf("subscribing to a URI that is not a session: code %v %q, want -32602", code, msg)
	}
	c.ping(1)
}
