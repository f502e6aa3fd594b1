package anthropic

import (
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// Native tools on the Messages API: functions as tools with an
// input_schema, the hosted search as web_search_20250305 with max_uses;
// calls stream as tool_use blocks whose input arrives as input_json_delta;
// results go back as tool_result blocks in the next user turn. Thinking
// blocks (with their signatures) travel in Replay and go back first in the
// assistant turn, as the API requires beside tool_use.

// toolParams converts the request's functions and server tools.
func toolParams(req providers.Request) []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam
	for _, s := range req.Tools {
		tool := anthropic.ToolParam{Name: s.Name, InputSchema: inputSchema(s.Parameters)}
		if s.Description != "" {
			tool.Description = anthropic.String(s.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &tool})
	}
	for _, s := range req.ServerTools {
		if s.Kind == providers.ServerToolWebSearch {
			ws := anthropic.WebSearchTool20250305Param{}
			if s.MaxUses > 0 {
				ws.MaxUses = anthropic.Int(int64(s.MaxUses))
			}
			out = append(out, anthropic.ToolUnionParam{OfWebSearchTool20250305: &ws})
		}
	}
	return out
}

// inputSchema maps a JSON Schema object to the SDK's input_schema.
func inputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
	input := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			input.Properties = v
		case "required":
			input.Required = adapt.StringList(v)
		default:
			input.ExtraFields[k] = v
		}
	}
	return input
}

// toolBlocks are the blocks a merged message carries besides its text:
// replayed thinking and tool_use blocks for the assistant, tool_result
// blocks (which must come first) for the user.
func toolBlocks(m providers.Message) (before, after []anthropic.ContentBlockParamUnion) {
	if m.Role == providers.RoleAssistant {
		before = replayBlocks(m.Replay)
		for _, c := range m.ToolCalls {
			after = append(after, anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{
				ID: c.ID, Name: c.Name, Input: callInput(c.Arguments)}})
		}
		return before, after
	}
	for _, r := range m.ToolResults {
		block := anthropic.ToolResultBlockParam{ToolUseID: r.CallID}
		if r.Content != "" {
			block.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: r.Content}}}
		}
		if r.IsError {
			block.IsError = anthropic.Bool(true)
		}
		before = append(before, anthropic.ContentBlockParamUnion{OfToolResult: &block})
	}
	return before, nil
}

// callInput is a call's arguments as the JSON object tool_use.input must
// be; arguments that are not one (the model wrote malformed JSON, which
// the engine answered as an error) go back as {}.
func callInput(args string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(args)
}

// thinkingBlock is one thinking or redacted_thinking block of an answer,
// as Replay keeps it.
type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

func replayBlocks(replay string) []anthropic.ContentBlockParamUnion {
	var blocks []thinkingBlock
	if replay == "" || json.Unmarshal([]byte(replay), &blocks) != nil {
		return nil
	}
	var out []anthropic.ContentBlockParamUnion
	for _, b := range blocks {
		switch b.Type {
		case "thinking":
			out = append(out, anthropic.ContentBlockParamUnion{OfThinking: &anthropic.ThinkingBlockParam{Thinking: b.Thinking, Signature: b.Signature}})
		case "redacted_thinking":
			out = append(out, anthropic.ContentBlockParamUnion{OfRedactedThinking: &anthropic.RedactedThinkingBlockParam{Data: b.Data}})
		}
	}
	return out
}

// Block kinds a stream's content blocks are folded as.
const (
	blockText = iota
	blockToolUse
	blockForced // the forced tool standing for a structured answer: its input is the text
	blockThinking
	blockOther
)

// maxSources bounds the sources one answer may report.
const maxSources = 256

// toolState follows the tool parts of one stream.
type toolState struct {
	forced   string // the forced tool's name, "" when none
	kinds    map[int64]int
	calls    adapt.ToolCalls
	thinking []thinkingBlock
	think    map[int64]int // block index → position in thinking
	cited    []providers.Source
	results  []providers.Source // search results, in the order they came
	searches int                // server_tool_use blocks of the search
	msg      anthropic.Message  // the segment as it came, for a paused turn's continuation (pause.go)
}

// start records a content block's kind and what it carries at once.
func (st *toolState) start(ev anthropic.MessageStreamEventUnion) {
	if st.kinds == nil {
		st.kinds, st.think = map[int64]int{}, map[int64]int{}
	}
	b := ev.ContentBlock
	switch b.Type {
	case "text":
		st.kinds[ev.Index] = blockText
		for _, c := range b.Citations {
			st.cite(c.Type, c.URL, c.Title, c.CitedText)
		}
	case "tool_use":
		if st.forced != "" && b.Name == st.forced {
			st.kinds[ev.Index] = blockForced
			return
		}
		st.kinds[ev.Index] = blockToolUse
		st.calls.Start(int(ev.Index), b.ID, b.Name)
	case "thinking", "redacted_thinking":
		st.kinds[ev.Index] = blockThinking
		if len(st.thinking) < adapt.MaxToolCalls {
			st.think[ev.Index] = len(st.thinking)
			st.thinking = append(st.thinking, thinkingBlock{Type: b.Type, Thinking: b.Thinking, Signature: b.Signature, Data: b.Data})
		}
	case "server_tool_use":
		st.kinds[ev.Index] = blockOther
		if b.Name == "web_search" {
			st.searches++
		}
	case "web_search_tool_result":
		st.kinds[ev.Index] = blockOther
		for _, r := range b.Content.OfWebSearchResultBlockArray {
			if r.URL != "" && len(st.results) < maxSources {
				st.results = append(st.results, providers.Source{URL: r.URL, Title: r.Title})
			}
		}
	default:
		st.kinds[ev.Index] = blockOther
	}
}

func (st *toolState) cite(typ, url, title, text string) {
	if typ == "web_search_result_location" && url != "" && len(st.cited) < maxSources {
		st.cited = append(st.cited, providers.Source{URL: url, Title: title, CitedText: text})
	}
}

// delta folds a content_block_delta and returns the text it carries.
func (st *toolState) delta(ev anthropic.MessageStreamEventUnion) string {
	d := ev.Delta
	switch d.Type {
	case "text_delta":
		return d.Text
	case "input_json_delta":
		switch st.kinds[ev.Index] {
		case blockToolUse:
			st.calls.Append(int(ev.Index), d.PartialJSON)
		case blockForced:
			return d.PartialJSON
		}
	case "citations_delta":
		st.cite(d.Citation.Type, d.Citation.URL, d.Citation.Title, d.Citation.CitedText)
	case "thinking_delta", "signature_delta":
		if i, ok := st.think[ev.Index]; ok {
			st.thinking[i].Thinking += d.Thinking
			st.thinking[i].Signature += d.Signature
		}
	}
	return ""
}

// finish puts the calls, sources, searches and replay into res.
func (st *toolState) finish(res *providers.Result) {
	res.ToolCalls = st.calls.Calls()
	res.Sources = st.sources()
	res.SearchCalls = min(max(res.SearchCalls, st.searches), providers.MaxSearchCalls)
	if len(st.thinking) > 0 && st.calls.Len() > 0 {
		b, _ := json.Marshal(st.thinking)
		res.Replay = string(b)
	}
}

// sources are the cited spans, then the results nothing cited.
func (st *toolState) sources() []providers.Source {
	out := append([]providers.Source(nil), st.cited...)
	seen := map[string]bool{}
	for _, c := range st.cited {
		seen[c.URL] = true
	}
	for _, r := range st.results {
		if !seen[r.URL] && len(out) < maxSources {
			seen[r.URL] = true
			out = append(out, r)
		}
	}
	return out
}
