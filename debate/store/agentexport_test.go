package store

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// agentSession is an agent run as the tool loop records it: the question,
// replies holding tool calls, the call rows, the results sent back, a
// protocol slip, and the closing complete.
func agentSession() (debate.SessionInfo, []transcript.Entry) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	info := debate.SessionInfo{ID: "a1b2c3d4e5f6", Title: "explain", Mode: "agent", Created: t0}
	reply := func(s int, text string) transcript.Entry {
		return transcript.Entry{Kind: transcript.KindReply, Speaker: "claude", Display: "Claude", Mode: "agent", Text: text, Status: "complete", Started: at(s)}
	}
	entries := []transcript.Entry{
		{Kind: transcript.KindUser, Speaker: "user", Mode: "agent", Text: "explain", Status: "complete", Started: at(0)},
		reply(1, "Looking around.\n<list_file><path>.</path><recursive>true</recursive></list_file>"),
		{Kind: transcript.KindToolCall, Speaker: "claude", Mode: "agent", Status: "complete", Started: at(2),
			ToolCalls: []transcript.ToolCall{{Tool: "list_file", Parameters: map[string]string{"path": ".", "recursive": "true"}, Result: "main.go (40 bytes)"}}},
		{Kind: transcript.KindToolResult, Speaker: "claude", Mode: "agent", Text: "main.go (40 bytes)", Status: "complete", Started: at(2)},
		reply(3, "<complete>done</complete"),
		{Kind: transcript.KindToolResult, Speaker: "claude", Mode: "agent", Text: "error: your reply could not be used", Error: "not closed", Status: "complete", Started: at(3)},
		reply(4, "<read_file><path>../x</path></read_file>"),
		{Kind: transcript.KindToolCall, Speaker: "claude", Mode: "agent", Status: "complete", Started: at(4),
			ToolCalls: []transcript.ToolCall{{Tool: "read_file", Parameters: map[string]string{"path": "../x"}, Result: "error: outside", Error: "outside"}}},
		{Kind: transcript.KindToolResult, Speaker: "claude", Mode: "agent", Text: "error: outside", Status: "complete", Started: at(4)},
		{Kind: transcript.KindReply, Speaker: "claude", Display: "Claude", Mode: "agent", Text: "It prints hi.", Status: "complete", Started: at(5),
			ToolCalls: []transcript.ToolCall{{Tool: "complete", Parameters: map[string]string{"summary": "It prints hi."}}}},
	}
	for i := range entries {
		entries[i].Turn = i + 1
	}
	return info, entries
}

// The agent conversation has the seed's shape: user and assistant messages
// only, each tool call on the reply that made it, parameters typed.
func TestAgentConversationSeedShape(t *testing.T) {
	t.Parallel()
	info, entries := agentSession()
	var buf bytes.Buffer
	if err := WriteAgentJSON(&buf, info, entries); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if keys := sortedKeysOf(doc); !slices.Equal(keys, []string{"conversation_id", "messages"}) || doc["conversation_id"] != info.ID {
		t.Fatalf("top level %v", doc)
	}
	msgs := doc["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		m := m.(map[string]any)
		if keys := sortedKeysOf(m); !slices.Equal(keys, []string{"content", "role", "timestamp", "tool_calls"}) {
			t.Fatalf("message keys %v", keys)
		}
		roles = append(roles, m["role"].(string)+":"+itoa(len(m["tool_calls"].([]any))))
	}
	if want := []string{"user:0", "assistant:1", "assistant:0", "user:0", "assistant:1", "assistant:1"}; !slices.Equal(roles, want) {
		t.Fatalf("roles:calls %v, want %v", roles, want)
	}
	list := msgs[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	want := map[string]any{"tool": "list_file", "parameters": map[string]any{"path": ".", "recursive": true}, "result": "main.go (40 bytes)"}
	if !reflect.DeepEqual(list, want) {
		t.Fatalf("list_file call %v, want %v", list, want)
	}
	if c := msgs[1].(map[string]any)["content"]; c != entries[1].Text {
		t.Fatalf("the reply's content %q", c)
	}
	if ts := msgs[1].(map[string]any)["timestamp"]; ts != "2026-11-22T09:00:01Z" {
		t.Fatalf("timestamp %v", ts)
	}
	read := msgs[4].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	if read["result"] != "error: outside" {
		t.Fatalf("a failed call's result %v", read)
	}
	done := msgs[5].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	if done["tool"] != "complete" || msgs[5].(map[string]any)["content"] != "It prints hi." {
		t.Fatalf("the closing message %v", msgs[5])
	}
}

// sessions export --format json of an agent session writes the same shape.
func TestExportOfAnAgentSessionIsTheAgentConversation(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	info, entries := agentSession()
	rec := st.Record()
	rec.Sink(debate.SessionStarted{Session: info})
	for _, en := range entries {
		rec.Sink(debate.EntryAdded{Entry: en})
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	var exported, direct bytes.Buffer
	if err := st.Export(ctx, &exported, info.ID, "json"); err != nil {
		t.Fatal(err)
	}
	_, loaded, err := st.Load(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAgentJSON(&direct, info, loaded); err != nil {
		t.Fatal(err)
	}
	if exported.String() != direct.String() {
		t.Fatalf("export:\n%s\nwant:\n%s", exported.String(), direct.String())
	}
	var doc AgentConversation
	if err := json.Unmarshal(exported.Bytes(), &doc); err != nil || len(doc.Messages) != 6 {
		t.Fatalf("export %v: %s", err, exported.String())
	}
}

func sortedKeysOf(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
