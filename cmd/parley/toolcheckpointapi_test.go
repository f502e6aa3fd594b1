package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// A member's call to a tool under ask survives its server: `parley serve`
// is killed while the call waits for the host, a new server on the same
// database shows the session awaiting_host at the call, POST …/checkpoint
// denies it with a reason, and the model's next request carries its own
// message with the call and then the denial as the call's result. The
// page is never fetched, and the answer is saved.
func TestToolApprovalKilledThenDeniedOverTheAPI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f, fetched := toolCallFixture(t, "", "serve:\n  tools: [fetch]\n  allow_private_fetch: true\ntools:\n  policy:\n    fetch_url: ask\n")
	srv := f.srv
	first, proc := f.startServe(t)
	var created struct {
		Session struct{ ID string } `json:"session"`
	}
	postJSON(t, first, "/api/v1/sessions", `{"mode":"mention","checkpoint":"each_round"}`, http.StatusCreated, &created)
	session := func(base string) map[string]any {
		t.Helper()
		resp, err := http.Get(base + "/api/v1/sessions/" + created.Session.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		if raw, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &v) != nil {
			t.Fatalf("GET session: %d %s", resp.StatusCode, raw)
		}
		return v
	}
	atTheCall := func(base string) bool {
		d := session(base)
		p, _ := d["checkpoint"].(map[string]any)
		tool, _ := p["tool"].(map[string]any)
		return d["status"] == "awaiting_host" && p["kind"] == "tool" && tool["tool"] == "fetch_url"
	}
	postJSON(t, first, "/api/v1/sessions/"+created.Session.ID+"/messages", `{"text":"@chatgpt what is the rate on that page?"}`, http.StatusAccepted, nil)
	waitRows(t, "the session never waited at the call", func() bool { return atTheCall(first) })
	if err := proc.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = proc.Wait()

	second := f.serve(t)
	if !atTheCall(second) {
		t.Fatalf("after the kill, the new server shows %v", session(second)["status"])
	}
	postJSON(t, second, "/api/v1/sessions/"+created.Session.ID+"/checkpoint", `{"action":"deny","text":"not that site"}`, http.StatusOK, nil)
	waitRows(t, "the session never went idle after the denial", func() bool { return session(second)["status"] == "idle" })
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the call, then the answer after the denial)", len(reqs))
	}
	msgs := reqs[1].Messages
	deniedAfterTheCall(t, msgs, "not that site")
	if n := fetched.Load(); n != 0 {
		t.Errorf("the denied page was fetched %d times", n)
	}
	entries, _ := session(second)["entries"].([]any)
	var answered bool
	for _, en := range entries {
		e, _ := en.(map[string]any)
		answered = answered || e["kind"] == "reply" && e["text"] == "Without the page: no figure." && e["status"] == "complete"
	}
	if !answered || strings.Contains(reqs[1].System+providersText(msgs), "SECRET-PAGE") {
		t.Errorf("the answer saved: %v; entries %v", answered, entries)
	}
}

func providersText(msgs []providers.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		for _, r := range m.ToolResults {
			b.WriteString(r.Content)
		}
	}
	return b.String()
}

// toolCallFixture is a fixture whose model (OpenAI's wire fake) first calls
// fetch_url on a local page, then answers once it gets the call's result;
// conf is the parley.yaml the runs read, and fetched counts the page's hits.
func toolCallFixture(t *testing.T, mode, conf string) (*checkpointFixture, *atomic.Int32) {
	t.Helper()
	fetched := new(atomic.Int32)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		_, _ = io.WriteString(w, "SECRET-PAGE")
	}))
	t.Cleanup(page.Close)
	srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		if last := r.Messages[len(r.Messages)-1]; len(last.ToolResults) > 0 {
			return providertest.Reply{Text: "Without the page: no figure."}
		}
		return providertest.Reply{Text: "Let me read it.", ToolCalls: []providers.ToolCall{
			{ID: "call_1", Name: "fetch_url", Arguments: `{"url":"` + page.URL + `/rates"}`}}}
	})
	f := &checkpointFixture{bin: buildParley(t), dir: t.TempDir(), srv: srv, mode: mode}
	if err := os.WriteFile(filepath.Join(f.dir, "parley.yaml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return f, fetched
}

// deniedAfterTheCall checks that a resumed request ends with the model's
// own message holding call_1, then the host's denial as its result.
func deniedAfterTheCall(t *testing.T, msgs []providers.Message, reason string) {
	t.Helper()
	if len(msgs) < 2 {
		t.Fatalf("the resumed request has %d messages", len(msgs))
	}
	model, result := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if model.Role != providers.RoleAssistant || len(model.ToolCalls) != 1 || model.ToolCalls[0].ID != "call_1" || model.Content != "Let me read it." {
		t.Errorf("the model's message before the result: %+v", model)
	}
	if len(result.ToolResults) != 1 || result.ToolResults[0].CallID != "call_1" || result.ToolResults[0].Content != "refused by the host: "+reason {
		t.Errorf("the call's result: %+v", result.ToolResults)
	}
}
