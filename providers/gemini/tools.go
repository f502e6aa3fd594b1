package gemini

import (
	"encoding/base64"
	"encoding/json"

	"google.golang.org/genai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// Native tools on the Gemini API: functions as functionDeclarations (their
// JSON Schema as parametersJsonSchema), the hosted search as googleSearch
// grounding; a call arrives whole as a functionCall part, with a thought
// signature the next request must carry back on that part (kept, base64,
// in ToolCall.Signature); results go back as functionResponse parts
// ({"output": …}, or {"error": …} for a failed call) in a user turn.

// geminiTools converts the request's functions and server tools.
func geminiTools(req providers.Request) []*genai.Tool {
	var out []*genai.Tool
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, s := range req.Tools {
			var params any = s.Parameters
			if s.Parameters == nil {
				params = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			decls = append(decls, &genai.FunctionDeclaration{Name: s.Name, Description: s.Description, ParametersJsonSchema: params})
		}
		out = append(out, &genai.Tool{FunctionDeclarations: decls})
	}
	for _, s := range req.ServerTools {
		if s.Kind == providers.ServerToolWebSearch {
			out = append(out, &genai.Tool{GoogleSearch: &genai.GoogleSearch{}})
			break
		}
	}
	return out
}

// toolParts are the parts of a merged message besides its text: function
// calls after the model's text, function responses before the user's.
func toolParts(m providers.Message, names map[string]string) (before, after []*genai.Part) {
	for _, c := range m.ToolCalls {
		var args map[string]any
		if json.Unmarshal([]byte(c.Arguments), &args) != nil {
			args = map[string]any{} // malformed: the engine answered it as an error
		}
		p := &genai.Part{FunctionCall: &genai.FunctionCall{ID: c.ID, Name: c.Name, Args: args}}
		if sig, err := base64.StdEncoding.DecodeString(c.Signature); err == nil && len(sig) > 0 {
			p.ThoughtSignature = sig
		}
		after = append(after, p)
	}
	for _, r := range m.ToolResults {
		key := "output"
		if r.IsError {
			key = "error"
		}
		name := r.Name
		if name == "" {
			name = names[r.CallID] // the API matches a response to its call by name
		}
		before = append(before, &genai.Part{FunctionResponse: &genai.FunctionResponse{
			ID: r.CallID, Name: name, Response: map[string]any{key: r.Content}}})
	}
	return before, after
}

// callNames maps each call id of the history to its function's name.
func callNames(msgs []providers.Message) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
	}
	return names
}

// maxSources bounds the sources one answer may report.
const maxSources = 256

// toolState follows the calls and grounding of one stream.
type toolState struct {
	calls adapt.ToolCalls
	next  int // the key of the next call: each functionCall part is one call
}

// part folds a functionCall part into the calls.
func (st *toolState) part(p *genai.Part, res *providers.Result) {
	fc := p.FunctionCall
	if fc == nil {
		return
	}
	args, err := json.Marshal(fc.Args)
	if err != nil || fc.Args == nil {
		args = []byte("{}")
	}
	key := st.next
	st.next++
	if !st.calls.Start(key, fc.ID, fc.Name) {
		return
	}
	st.calls.Set(key, string(args))
	if len(p.ThoughtSignature) > 0 {
		st.calls.SetSignature(key, base64.StdEncoding.EncodeToString(p.ThoughtSignature))
	}
	res.ToolCalls = st.calls.Calls()
}

// grounding puts a candidate's grounding metadata into res: the supported
// segments with the pages they cite, then the pages nothing cites, and
// one search a query the model ran. Each chunk repeats the metadata so
// far, so the last one wins.
func grounding(g *genai.GroundingMetadata, res *providers.Result) {
	if g == nil {
		return
	}
	res.SearchCalls = min(len(g.WebSearchQueries), providers.MaxSearchCalls)
	var out []providers.Source
	cited := map[int]bool{}
	web := func(i int32) *genai.GroundingChunkWeb {
		if i < 0 || int(i) >= len(g.GroundingChunks) || g.GroundingChunks[i] == nil {
			return nil
		}
		return g.GroundingChunks[i].Web
	}
	for _, s := range g.GroundingSupports {
		if s == nil {
			continue
		}
		span := ""
		if s.Segment != nil {
			span = s.Segment.Text
		}
		for _, i := range s.GroundingChunkIndices {
			if w := web(i); w != nil && w.URI != "" && len(out) < maxSources {
				out = append(out, providers.Source{URL: w.URI, Title: w.Title, CitedText: span})
				cited[int(i)] = true
			}
		}
	}
	for i := range g.GroundingChunks {
		if w := web(int32(i)); w != nil && w.URI != "" && !cited[i] && len(out) < maxSources {
			out = append(out, providers.Source{URL: w.URI, Title: w.Title})
		}
	}
	res.Sources = out
}
