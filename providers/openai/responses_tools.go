package openai

import (
	"encoding/json"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// Native tools on the Responses API: function tools inline ({"type":
// "function", name, description, parameters}), the hosted web search as
// {"type": "web_search"}; calls stream as function_call output items with
// response.function_call_arguments.delta/done; results go back as
// function_call_output input items. Nothing is stored on OpenAI's side, so
// a reasoning model's reasoning items travel in Replay (their
// encrypted_content asked for with include) and go back before the calls
// they led to, as the API requires.

// includeReasoning is the include value that returns reasoning items'
// encrypted content on a store: false request.
const includeReasoning = openai.ResponseInclude("reasoning.encrypted_content")

// responsesTools converts the request's functions and server tools.
func responsesTools(req providers.Request) (tools []openai.ResponseTool, maxSearches int) {
	for _, s := range req.Tools {
		tools = append(tools, openai.NewResponseFunctionTool(openai.FunctionDefinition{
			Name: s.Name, Description: s.Description, Parameters: toolParameters(s.Parameters),
		}))
	}
	for _, s := range req.ServerTools {
		if s.Kind == providers.ServerToolWebSearch {
			tools = append(tools, openai.ResponseTool{Type: "web_search"})
			maxSearches = max(maxSearches, s.MaxUses)
		}
	}
	return tools, maxSearches
}

// responsesInput converts the history to input items.
func responsesInput(msgs []providers.Message) []any {
	input := make([]any, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case providers.RoleTool:
			for _, r := range m.ToolResults {
				input = append(input, openai.ResponseFunctionCallOutput{Type: "function_call_output", CallID: r.CallID, Output: r.Content})
			}
		case providers.RoleAssistant:
			input = append(input, replayItems(m.Replay)...)
			if m.Content != "" || len(m.ToolCalls) == 0 {
				input = append(input, openai.ResponseInputMessage{Role: "assistant", Content: m.Content})
			}
			for _, c := range m.ToolCalls {
				input = append(input, functionCallItem{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
		default:
			input = append(input, openai.ResponseInputMessage{Role: "user", Content: m.Content})
		}
	}
	return input
}

// functionCallItem is a function_call input item (the model's call, sent
// back with the history).
type functionCallItem struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// replayItems decodes a Replay: the reasoning items of the answer, as the
// server sent them. A Replay that is not such a list is dropped.
func replayItems(replay string) []any {
	if replay == "" {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal([]byte(replay), &items) != nil {
		return nil
	}
	out := make([]any, 0, len(items))
	for _, it := range items {
		out = append(out, it)
	}
	return out
}

// responsesToolState follows the tool parts of one Responses stream.
type responsesToolState struct {
	calls     adapt.ToolCalls
	reasoning []json.RawMessage
}

// toolEvent folds the tool events of a stream into res.
func (st *responsesToolState) toolEvent(ev openai.ResponseStreamEvent, res *providers.Result) {
	switch ev.Type {
	case openai.ResponseStreamEventOutputItemAdded:
		if it := ev.Item; it != nil && it.Type == "function_call" {
			st.calls.Start(ev.OutputIndex, it.CallID, it.Name)
			if it.Arguments != "" {
				st.calls.Set(ev.OutputIndex, it.Arguments)
			}
		}
	case openai.ResponseStreamEventFunctionArgumentsDelta:
		st.calls.Append(ev.OutputIndex, ev.Delta)
	case openai.ResponseStreamEventFunctionArgumentsDone:
		st.calls.Set(ev.OutputIndex, ev.Arguments)
	case openai.ResponseStreamEventOutputItemDone:
		it := ev.Item
		if it == nil {
			return
		}
		switch it.Type {
		case "function_call":
			st.calls.Start(ev.OutputIndex, it.CallID, it.Name)
			if it.Arguments != "" {
				st.calls.Set(ev.OutputIndex, it.Arguments)
			}
		case "web_search_call":
			res.SearchCalls = min(res.SearchCalls+1, providers.MaxSearchCalls)
		case "reasoning":
			st.keepReasoning(ev.Raw)
			b, _ := json.Marshal(st.reasoning)
			res.Replay = string(b)
		case "message":
			for _, c := range it.Content {
				res.Sources = appendCitations(res.Sources, c)
			}
		}
	}
	if st.calls.Len() > 0 {
		res.ToolCalls = st.calls.Calls()
	}
}

// keepReasoning keeps the item of an output_item.done event, as sent.
func (st *responsesToolState) keepReasoning(raw json.RawMessage) {
	var ev struct {
		Item json.RawMessage `json:"item"`
	}
	if json.Unmarshal(raw, &ev) == nil && len(ev.Item) > 0 && len(st.reasoning) < adapt.MaxToolCalls {
		st.reasoning = append(st.reasoning, ev.Item)
	}
}

// maxSources bounds the sources one answer may report.
const maxSources = 256

// appendCitations adds a text part's url_citation annotations, each with
// the span of the text it cites (start and end are character offsets).
func appendCitations(out []providers.Source, c openai.ResponseOutputContent) []providers.Source {
	for _, a := range c.Annotations {
		if a.Type != "url_citation" || a.URL == "" || len(out) >= maxSources {
			continue
		}
		out = append(out, providers.Source{URL: a.URL, Title: a.Title, CitedText: runeSpan(c.Text, a.StartIndex, a.EndIndex)})
	}
	return out
}

// runeSpan is s[start:end] in characters, "" when the span is not inside s.
func runeSpan(s string, start, end int) string {
	if start < 0 || end <= start || end > utf8.RuneCountInString(s) {
		return ""
	}
	r := []rune(s)
	return string(r[start:end])
}
