package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/sessionid"
	"github.com/parleyhq/parley/debate/transcript"
)

// AgentConversation is an agent session in the seed's shape: the whole
// conversation, each tool call on the assistant message that made it, with
// typed parameters and the result the model got back.
type AgentConversation struct {
	ConversationID string         `json:"conversation_id"`
	Messages       []AgentMessage `json:"messages"`
}

// AgentMessage is one message of an AgentConversation.
type AgentMessage struct {
	Role      string          `json:"role"` // user or assistant
	Content   string          `json:"content"`
	Timestamp time.Time       `json:"timestamp"`
	ToolCalls []AgentToolCall `json:"tool_calls"`
}

// AgentToolCall is one tool call: parameters with their own JSON types
// (recursive is a boolean), and the result sent back to the model (a
// failed call's result is its error message).
type AgentToolCall struct {
	Tool       string         `json:"tool"`
	Parameters map[string]any `json:"parameters"`
	Result     string         `json:"result"`
}

// AgentConversationOf builds the seed's shape from a session's entries.
// The tool results the model was sent live in the calls' results; a
// reply the model had to redo is followed by the user message that said
// why. Error rows and verdicts have no place in the shape and are left out.
func AgentConversationOf(info debate.SessionInfo, entries []transcript.Entry) AgentConversation {
	out := AgentConversation{ConversationID: info.ID, Messages: []AgentMessage{}}
	lastAssistant := -1
	for _, en := range entries {
		switch {
		case en.Kind == transcript.KindToolCall:
			if lastAssistant < 0 { // a call with no reply before it: keep it on its own
				out.Messages = append(out.Messages, agentMessage("assistant", "", en.Started))
				lastAssistant = len(out.Messages) - 1
			}
			m := &out.Messages[lastAssistant]
			for _, c := range en.ToolCalls {
				m.ToolCalls = append(m.ToolCalls, agentToolCall(c))
			}
		case en.Kind == transcript.KindToolResult:
			if en.Error != "" { // the protocol slip the model was told about
				out.Messages = append(out.Messages, agentMessage("user", en.Text, en.Started))
			}
		case en.Kind == transcript.KindUser, en.Kind == transcript.KindNote:
			out.Messages = append(out.Messages, agentMessage("user", en.Text, en.Started))
		case en.IsAgentTurn():
			m := agentMessage("assistant", en.Text, en.Started)
			for _, c := range en.ToolCalls { // the closing complete
				m.ToolCalls = append(m.ToolCalls, agentToolCall(c))
			}
			out.Messages = append(out.Messages, m)
			lastAssistant = len(out.Messages) - 1
		}
	}
	return out
}

func agentMessage(role, content string, at time.Time) AgentMessage {
	return AgentMessage{Role: role, Content: content, Timestamp: at.UTC(), ToolCalls: []AgentToolCall{}}
}

func agentToolCall(c transcript.ToolCall) AgentToolCall {
	params := make(map[string]any, len(c.Parameters))
	for k, v := range c.Parameters {
		params[k] = v
		if k == "recursive" {
			if b, err := strconv.ParseBool(v); err == nil {
				params[k] = b
			}
		}
	}
	result := c.Result
	if result == "" && c.Error != "" {
		result = "error: " + c.Error
	}
	return AgentToolCall{Tool: c.Tool, Parameters: params, Result: result}
}

// WriteAgentJSON writes an agent session in the seed's shape, indented.
func WriteAgentJSON(w io.Writer, info debate.SessionInfo, entries []transcript.Entry) error {
	enc := sanitize.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // code is full of < and &
	return enc.Encode(AgentConversationOf(info, entries))
}

// AgentJSONPath is where `parley agent` saves a run by default: beside the
// session database, as agent-<session>.json. The ID is checked first: a
// session ID never leads a file out of that folder.
func AgentJSONPath(dbPath, session string) (string, error) {
	if err := sessionid.Check(session); err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(dbPath), "agent-"+session+".json"), nil
}

// SaveAgentJSON writes an agent session to path, readable by its owner
// only (it holds the code the agent read).
func SaveAgentJSON(path string, info debate.SessionInfo, entries []transcript.Entry) (err error) {
	if path == "" {
		return errors.New("no file to save the agent conversation to")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("saving the agent conversation: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("saving the agent conversation: %w", cerr)
		}
	}()
	if err := f.Chmod(0o600); err != nil { // an existing file keeps its mode otherwise
		return fmt.Errorf("saving the agent conversation: %w", err)
	}
	return WriteAgentJSON(f, info, entries)
}
