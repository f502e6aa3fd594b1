package web

import (
	"net/url"
	"strings"

	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/transcript"
)

// The page shows what members' tools returned: each tool call as the core
// words it ("✓ E1 fetch_url example.org/report") with a link to its
// source, and the session's ledger under the transcript. Sources and
// titles come from outside: html/template escapes them, and a source is a
// link only when it is an http or https URL (never javascript:, data: or
// a relative path), opened with rel="noopener noreferrer".

// callView is one tool call of a transcript item.
type callView struct {
	Line  string // transcript.ToolCall.Marked
	Error bool
	Source
}

// Source is a record's source as a link (Href empty: shown as text).
type Source struct {
	Href, Label string
}

// evidenceView is one record of the ledger.
type evidenceView struct {
	ID, Kind, Tool, Agent string
	Turn                  int
	Source
}

func sourceOf(r evidence.Record) Source {
	label := r.Title
	if strings.TrimSpace(label) == "" {
		label = r.Source
	}
	return Source{Href: safeHref(r.Source), Label: label}
}

// safeHref is raw when it is an absolute http or https URL with a host,
// else "".
func safeHref(raw string) string {
	if raw == "" || len(raw) > 4096 || strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// callsOf are an entry's tool calls with their records' sources.
func callsOf(e transcript.Entry) []callView {
	out := make([]callView, 0, len(e.ToolCalls))
	for i, c := range e.ToolCalls {
		v := callView{Line: c.Marked(e.CallEvidence(i)), Error: c.Error != ""}
		if id := e.CallEvidence(i); id != "" {
			v.Source = sourceOf(e.Evidence[i])
		}
		out = append(out, v)
	}
	return out
}

// ledgerOf is the session's ledger as its entries hold it, each record once.
func ledgerOf(es []transcript.Entry) []evidenceView {
	var out []evidenceView
	seen := map[string]bool{}
	for _, e := range es {
		for _, r := range e.Evidence {
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			out = append(out, evidenceView{ID: r.ID, Kind: r.Kind, Tool: r.Tool, Agent: r.Agent, Turn: r.Turn, Source: sourceOf(r)})
		}
	}
	return out
}
