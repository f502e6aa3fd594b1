package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

// FuzzToolUseEvents feeds the tool_use assembler the events a server could
// send (one JSON event a line): it stays within its bounds and never
// panics, and input streamed as input_json_delta pieces comes back whole.
func FuzzToolUseEvents(f *testing.F) {
	f.Add("{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}\n"+
		"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\"}}", `{"path":"a"}`, uint8(4))
	f.Add("{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"web_search_tool_result\",\"content\":[{\"type\":\"web_search_result\",\"url\":\"u\",\"title\":\"t\"}]}}\n"+
		"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"citations_delta\",\"citation\":{\"type\":\"web_search_result_location\",\"url\":\"u\",\"cited_text\":\"c\"}}}\n"+
		"{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"s\"}}\n"+
		"{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"server_tool_use\":{\"web_search_requests\":99999999999}}}", ``, uint8(0))
	f.Fuzz(func(t *testing.T, lines, args string, size uint8) {
		st := &toolState{}
		var res providers.Result
		for _, line := range strings.Split(lines, "\n") {
			var ev anthropic.MessageStreamEventUnion
			if json.Unmarshal([]byte(line), &ev) == nil {
				st.streamEvent(ev, &res)
			}
		}
		st.finish(&res)
		if len(res.ToolCalls) > adapt.MaxToolCalls || res.SearchCalls > providers.MaxSearchCalls || res.SearchCalls < 0 || len(res.Sources) > 2*maxSources {
			t.Fatalf("unbounded: %d calls, %d searches, %d sources", len(res.ToolCalls), res.SearchCalls, len(res.Sources))
		}
		for _, c := range res.ToolCalls {
			if c.ID == "" || len(c.Arguments) > adapt.MaxToolArguments {
				t.Fatalf("call %+v", c)
			}
		}
		fresh := &toolState{}
		var out providers.Result
		var start anthropic.MessageStreamEventUnion
		_ = json.Unmarshal([]byte(`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"toolu_q","name":"fetch_url","input":{}}}`), &start)
		fresh.streamEvent(start, &out)
		n := int(size%16) + 1
		args = strings.ToValidUTF8(args, "?") // a JSON string carries text only
		for rest := []rune(args); len(rest) > 0; {
			piece := string(rest[:min(n, len(rest))])
			rest = rest[min(n, len(rest)):]
			var d anthropic.MessageStreamEventUnion
			b, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 5, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			if json.Unmarshal(b, &d) != nil {
				t.Fatal("cannot build a delta")
			}
			fresh.streamEvent(d, &out)
		}
		fresh.finish(&out)
		if len(out.ToolCalls) != 1 || out.ToolCalls[0].ID != "toolu_q" || out.ToolCalls[0].Arguments != args {
			t.Fatalf("calls = %+v, want arguments %q", out.ToolCalls, args)
		}
	})
}
