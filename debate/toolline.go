package debate

import (
	"maps"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/sanitize"
)

// Short is the call in a narrow line, what matters first so a cut at a
// panel's width keeps it: the evidence id, the tool and its target
// ("E1 fetch_url 127.0.0.1:8765/report.html", a URL without its scheme),
// or for an error the tool, the reason and then the target. Unsanitised.
// A saved call words itself the same way (ToolCall.Short), so the
// console's panels and transcript and `sessions show` print one line.
func (ev ToolFinished) Short() string {
	return shortCall(ev.Tool, parameters(ev.Arguments), ev.Evidence, ev.IsError, ev.Result)
}

// Short is a call in flight in a narrow line: the tool and its target.
func (ev ToolStarted) Short() string {
	return strings.TrimSpace(ev.Tool + " " + callTarget(parameters(ev.Arguments)))
}

// Short is a saved call as ToolFinished.Short words it; evidenceID is the
// record it gave ("" for none: an error, or a call of the XML protocol).
func (c ToolCall) Short(evidenceID string) string {
	return shortCall(c.Tool, c.Parameters, evidenceID, c.Error != "", c.Error)
}

// Marked is Short after its outcome's mark, the line every door prints
// for a finished call: "✓ E1 fetch_url x/r", "✗ fetch_url refused: … · x".
func (ev ToolFinished) Marked() string { return callMark(ev.IsError) + ev.Short() }

// Marked is a saved call's line as ToolFinished.Marked words it.
func (c ToolCall) Marked(evidenceID string) string {
	return callMark(c.Error != "") + c.Short(evidenceID)
}

func callMark(isError bool) string {
	if isError {
		return "✗ "
	}
	return "✓ "
}

// CallEvidence is the id of the record call i of a tool_call entry gave
// ("" when it gave none).
func (en Entry) CallEvidence(i int) string {
	if i < 0 || i >= len(en.ToolCalls) || en.ToolCalls[i].Error != "" || len(en.Evidence) != len(en.ToolCalls) {
		return ""
	}
	return en.Evidence[i].ID
}

func shortCall(tool string, params map[string]string, evidenceID string, isError bool, reason string) string {
	target := callTarget(params)
	if isError {
		return strings.TrimSpace(tool + " " + sanitize.Clip(strings.Join(strings.Fields(reason), " "), 200) + " · " + target)
	}
	return strings.TrimSpace(evidenceID + " " + tool + " " + target)
}

// callTarget is what a call reads: its arguments' values in key order (a
// URL without its scheme; a flag set to true by its name, one set to false
// or empty left out), clipped.
func callTarget(params map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := params[k]
		switch v {
		case "", "false":
			continue
		case "true":
			v = k
		}
		if rest, cut := strings.CutPrefix(v, "https://"); cut {
			v = rest
		} else if rest, cut := strings.CutPrefix(v, "http://"); cut {
			v = rest
		}
		parts = append(parts, strings.Join(strings.Fields(v), " "))
	}
	return sanitize.Clip(strings.Join(parts, " "), 120)
}
