package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// FuzzFunctionCallChunks feeds the functionCall and grounding folding the
// chunks a server could send (one JSON response a line): it stays within
// its bounds, never panics, every call has an id and arguments that are a
// JSON object, and a call's args and signature come back as sent.
func FuzzFunctionCallChunks(f *testing.F) {
	f.Add(`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"a","name":"read_file","args":{"path":"x"}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}]}`, `{"q":"go"}`)
	f.Add(`{"candidates":[{"groundingMetadata":{"webSearchQueries":["a","b"],"groundingChunks":[null,{"web":{"uri":"u","title":"t"}}],"groundingSupports":[{"segment":{"text":"s"},"groundingChunkIndices":[1,7,-3]}]}}]}`, `{}`)
	f.Add(`{"candidates":[{"content":{"parts":[{"functionCall":{"args":null}},{"functionCall":{}}]}}]}`, `[1]`)
	f.Fuzz(func(t *testing.T, lines, args string) {
		st := &toolState{}
		var res providers.Result
		for _, line := range strings.Split(lines, "\n") {
			var chunk genai.GenerateContentResponse
			if json.Unmarshal([]byte(line), &chunk) == nil {
				st.streamChunk(&chunk, &res)
			}
		}
		if len(res.ToolCalls) > adapt.MaxToolCalls || res.SearchCalls > providers.MaxSearchCalls || len(res.Sources) > maxSources {
			t.Fatalf("unbounded: %d calls, %d searches, %d sources", len(res.ToolCalls), res.SearchCalls, len(res.Sources))
		}
		for _, c := range res.ToolCalls {
			var obj map[string]any
			if c.ID == "" || json.Unmarshal([]byte(c.Arguments), &obj) != nil || obj == nil {
				t.Fatalf("call %+v", c)
			}
		}
		var want map[string]any
		if json.Unmarshal([]byte(args), &want) != nil || want == nil {
			return
		}
		fresh := &toolState{}
		var out providers.Result
		fresh.streamChunk(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Parts: []*genai.Part{
			{FunctionCall: &genai.FunctionCall{Name: "fetch_url", Args: want}, ThoughtSignature: []byte{0, 1, 2}},
		}}}}}, &out)
		var got map[string]any
		if len(out.ToolCalls) != 1 || json.Unmarshal([]byte(out.ToolCalls[0].Arguments), &got) != nil || out.ToolCalls[0].Signature != "AAEC" {
			t.Fatalf("calls = %+v", out.ToolCalls)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Fatalf("args %s came back as %s", a, b)
		}
	})
}
