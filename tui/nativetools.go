package tui

import (
	"github.com/parleyhq/parley/debate"
)

// NativeToolStarted shows a native tool call in flight in the member's
// panel, one compact line: "⋯ fetch_url 127.0.0.1:8765/report.html".
func (p *panel) NativeToolStarted(ev debate.ToolStarted) {
	line := "⋯ " + Sanitize(ev.Short())
	if p.running == nil {
		p.running = map[string]string{}
	}
	p.running[ev.CallID] = line
	p.addToolLine(line)
}

// NativeToolFinished replaces the call's line with its outcome, worded by
// the core: "✓ E1 fetch_url 127.0.0.1:8765/report.html" or
// "✗ fetch_url refused: … · 10.0.0.1/".
func (p *panel) NativeToolFinished(ev debate.ToolFinished) {
	done := Sanitize(ev.Marked()) // the id first: a narrow panel cuts the end
	started, ok := p.running[ev.CallID]
	delete(p.running, ev.CallID)
	if ok {
		for i := len(p.tools) - 1; i >= 0; i-- {
			if p.tools[i] == started {
				p.tools[i] = done
				return
			}
		}
	}
	p.addToolLine(done)
}

// addToolLine keeps the panel's last 20 tool lines.
func (p *panel) addToolLine(line string) {
	p.tools = append(p.tools, line)
	if len(p.tools) > 20 {
		p.tools = p.tools[len(p.tools)-20:]
	}
}
