package debate

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/toolbox"
)

// Short is the call in a narrow line, what matters first so a cut at a
// panel's width keeps it: the evidence id, the tool and its target
// ("E1 fetch_url 127.0.0.1:8765/report.html", a URL without its scheme),
// or for an error the tool, the reason and then the target. Unsanitised.
func (ev ToolFinished) Short() string {
	target := toolTarget(ev.Arguments)
	if ev.IsError {
		return strings.TrimSpace(ev.Tool + " " + sanitize.Clip(strings.Join(strings.Fields(ev.Result), " "), 200) + " · " + target)
	}
	return strings.TrimSpace(ev.Evidence + " " + ev.Tool + " " + target)
}

// Short is a call in flight in a narrow line: the tool and its target.
func (ev ToolStarted) Short() string {
	return strings.TrimSpace(ev.Tool + " " + toolTarget(ev.Arguments))
}

// toolTarget is what a call reads, its arguments' values in key order
// (a URL without its scheme), clipped.
func toolTarget(arguments string) string {
	args, err := toolbox.Arguments(arguments)
	if err != nil {
		return sanitize.Clip(strings.Join(strings.Fields(arguments), " "), 120)
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		v, ok := args[k].(string)
		if !ok {
			raw, _ := json.Marshal(args[k])
			v = string(raw)
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
