package debate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// A server-side search (OpenAI Responses web_search, Anthropic's
// web_search server tool, Gemini's google_search grounding) runs inside the
// vendor's call: no call of ours to run, but its sources are evidence like
// a fetched page. Each source of a step becomes a record of the ledger
// (kind search, tool web_search, seen by the member that searched), saved
// as a tool_call entry and announced as a finished call, so every door
// lists it as it lists fetch_url's ("✓ E3 web_search example.org/a").
//
// The model wrote its answer before the ids existed, so it cannot cite
// them in brackets; the vendor's own citations stand for it: a source the
// vendor says the answer cites (one with a cited span) counts as cited by
// that turn (SearchCitations), checked by the core like an id in brackets.

// SearchTool is the name search sources are recorded under.
const SearchTool = "web_search"

// maxSourcesPerStep bounds the records one step's search makes.
const maxSourcesPerStep = 32

// recordSources makes a step's search sources evidence.
func (t *Turn) recordSources(sources []providers.Source) {
	e, a := t.engine, t.spec.Agent
	for i, s := range sources {
		if i >= maxSourcesPerStep {
			break
		}
		url := strings.TrimSpace(s.URL)
		if url == "" {
			continue
		}
		text := s.CitedText
		if strings.TrimSpace(text) == "" {
			text = s.Title
		}
		rec, added := e.tooling.ledger.Reuse(evidence.Record{Kind: evidence.KindSearch, Source: url, Title: s.Title,
			Tool: SearchTool, Agent: a.Name, Turn: t.entry.Turn, Text: text})
		if added {
			e.Emit(EvidenceAdded{Turn: t.entry.Turn, Record: rec})
		}
		if strings.TrimSpace(s.CitedText) != "" {
			e.tooling.cite(t.entry.Turn, rec.ID)
		}
		args, _ := json.Marshal(map[string]string{"url": url})
		e.AddEntry(transcript.Entry{Kind: transcript.KindToolCall, Speaker: a.Name, Display: a.Label(), Provider: a.Provider.Name(), Model: a.Model,
			Round: t.spec.Round, Prompt: t.spec.Prompt, Evidence: []evidence.Record{rec},
			ToolCalls: []transcript.ToolCall{{Tool: SearchTool, Parameters: map[string]string{"url": url}, Result: text}}})
		e.Emit(ToolFinished{Turn: t.entry.Turn, Agent: a.Name, CallID: fmt.Sprintf("search_%d_%d", t.entry.Turn, i+1), Tool: SearchTool,
			Arguments: string(args), Result: sanitize.Clip(text, maxEventResult), Bytes: len(text), Evidence: rec.ID})
	}
}

// cite notes that turn's answer cites id through its vendor's citations.
func (tl *tooling) cite(turn int, id string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.searchCites == nil {
		tl.searchCites = map[int][]string{}
	}
	for _, old := range tl.searchCites[turn] {
		if old == id {
			return
		}
	}
	tl.searchCites[turn] = append(tl.searchCites[turn], id)
}

// SearchCitations are the ids of the search sources the vendor says turn's
// answer cites (see recordSources), for the running exchange's checks.
func (e *Engine) SearchCitations(turn int) []string {
	e.tooling.mu.Lock()
	defer e.tooling.mu.Unlock()
	return append([]string(nil), e.tooling.searchCites[turn]...)
}
