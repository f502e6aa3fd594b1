// A panel's tool lines: the tools its agent calls while it answers.

package tui

import (
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// Tool records a tool call starting or finishing.
func (p *panel) Tool(ev debate.ToolActivity) {
	line := toolLine(ev.Call)
	if ev.Done && len(p.tools) > 0 && strings.HasPrefix(p.tools[len(p.tools)-1], "⋯ "+ev.Call.Tool) {
		p.tools[len(p.tools)-1] = doneToolLine(ev.Call, "")
		return
	}
	if ev.Done {
		line = doneToolLine(ev.Call, "")
	}
	p.tools = append(p.tools, line)
	if len(p.tools) > 20 {
		p.tools = p.tools[len(p.tools)-20:]
	}
}

func toolLine(c transcript.ToolCall) string {
	return "⋯ " + Sanitize(c.Short(""))
}

// doneToolLine is a finished call as the core words it (ToolCall.Marked):
// "✓ E1 fetch_url 127.0.0.1:8765/report.html", "✗ read_file <reason> · x".
func doneToolLine(c transcript.ToolCall, evidenceID string) string {
	return Sanitize(c.Marked(evidenceID))
}
