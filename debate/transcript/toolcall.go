package transcript

import (
	"maps"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/sanitize"
)

// HostNote reports whether en is the host's note at a checkpoint (a user
// entry of a round, which Checkpoint saves), not a question that starts
// an exchange: readers of a run's record must not take it for a new run.
func (en Entry) HostNote() bool { return en.Kind == KindUser && en.Round > 0 }

// Short is a saved call as debate.ToolFinished.Short words it; evidenceID is the
// record it gave ("" for none: an error, or a call of the XML protocol).
func (c ToolCall) Short(evidenceID string) string {
	return ShortCall(c.Tool, c.Parameters, evidenceID, c.Error != "", c.Error)
}

// Marked is a saved call's line as debate.ToolFinished.Marked words it.
func (c ToolCall) Marked(evidenceID string) string {
	return CallMark(c.Error != "") + c.Short(evidenceID)
}

// CallMark is the mark before a finished call's line: ✗ for an error, ✓ otherwise.
func CallMark(isError bool) string {
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

// ShortCall is a call in a narrow line (see ToolCall.Short): the evidence id,
// the tool and its target, or for an error the tool, the reason and then
// the target. Unsanitised.
func ShortCall(tool string, params map[string]string, evidenceID string, isError bool, reason string) string {
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
