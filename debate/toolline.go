package debate

import "github.com/parleyhq/parley/debate/transcript"

// Short is the call in a narrow line, what matters first so a cut at a
// panel's width keeps it: the evidence id, the tool and its target
// ("E1 fetch_url 127.0.0.1:8765/report.html", a URL without its scheme),
// or for an error the tool, the reason and then the target. Unsanitised.
// A saved call words itself the same way (ToolCall.Short), so the
// console's panels and transcript and `sessions show` print one line.
func (ev ToolFinished) Short() string {
	return transcript.ShortCall(ev.Tool, parameters(ev.Arguments), ev.Evidence, ev.IsError, ev.Result)
}

// Short is a call in flight in a narrow line: the tool and its target.
func (ev ToolStarted) Short() string {
	return transcript.ShortCall(ev.Tool, parameters(ev.Arguments), "", false, "")
}

// Marked is Short after its outcome's mark, the line every door prints
// for a finished call: "✓ E1 fetch_url x/r", "✗ fetch_url refused: … · x".
func (ev ToolFinished) Marked() string { return transcript.CallMark(ev.IsError) + ev.Short() }
