package providers

import (
	"io"
	"math"
	"testing"
	"time"
)

func TestSearchFeesByFamily(t *testing.T) {
	for _, c := range []struct {
		model      string
		fee        float64
		perRequest bool
	}{
		{"gpt-6.1-sol", 0.010, false},
		{"claude-sonnet-4-6", 0.010, false},
		{"gemini-3-flash-preview", 0.014, false},
		{"gemini-2.5-pro", 0.035, true},
	} {
		info := Catalogue{}.Lookup(c.model)
		if info.SearchFee == nil || *info.SearchFee != c.fee || info.SearchPerRequest != c.perRequest {
			t.Errorf("%s: fee %v per request %v, want %v %v", c.model, info.SearchFee, info.SearchPerRequest, c.fee, c.perRequest)
		}
	}
	if !Family("gpt-6.1-sol").NativeTools() || (ModelInfo{ToolsAPI: "none"}).NativeTools() {
		t.Error("NativeTools misreads tools_api")
	}
	if Family("llama3.2").SearchFee != nil {
		t.Error("an unknown family has a search fee")
	}
	// A catalogue entry's own fee wins over its family's.
	own := 0.02
	in, out := 1.0, 2.0
	cat := Catalogue{"gpt-x": {Provider: "openai", Input: &in, Output: &out, SearchFee: &own}}
	if f := cat.Lookup("gpt-x").SearchFee; f == nil || *f != own {
		t.Errorf("own fee lost: %v", f)
	}
}

func TestSearchCallsAreCharged(t *testing.T) {
	in, out := 1.0, 10.0
	gpt := Catalogue{"gpt-6.1-sol": {Provider: "openai", Input: &in, Output: &out}}.Lookup("gpt-6.1-sol")
	u := Usage{InputTokens: 1_000_000, OutputTokens: 100_000, SearchCalls: 3}
	cost, ok := gpt.CostAt(u, time.Now())
	if want := 1.0 + 1.0 + 3*0.010; !ok || math.Abs(cost-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", cost, want)
	}
	// The long-context multiplier applies to tokens, not to the fee.
	gpt.LongContext = &LongContext{Above: 500_000, Input: 2, Output: 1.5}
	cost, _ = gpt.CostAt(u, time.Now())
	if want := 2.0 + 1.5 + 3*0.010; math.Abs(cost-want) > 1e-9 {
		t.Errorf("long-context cost = %v, want %v", cost, want)
	}
	// Gemini 2.x grounding is one fee a request however many queries ran.
	g := Catalogue{"gemini-2.5-pro": {Provider: "gemini", Input: &in, Output: &out}}.Lookup("gemini-2.5-pro")
	if c, _ := g.CostAt(Usage{SearchCalls: 4}, time.Now()); math.Abs(c-0.035) > 1e-12 {
		t.Errorf("per-request fee = %v", c)
	}
	// A server's count is bounded.
	if c := gpt.SearchCost(1 << 40); c != MaxSearchCalls*0.010 {
		t.Errorf("unbounded search cost %v", c)
	}
	// Charge keeps the searches a result reports, even on a cut stream.
	res := Result{SearchCalls: 2, Answered: true}
	if got := Charge(Request{}, res, Streamed{}, io.ErrUnexpectedEOF); got.SearchCalls != 2 {
		t.Errorf("charged %+v", got)
	}
	if got := Charge(Request{}, Result{SearchCalls: -5, Usage: Usage{InputTokens: 1, OutputTokens: 1}}, Streamed{}, nil); got.SearchCalls != 0 {
		t.Errorf("negative searches charged: %+v", got)
	}
	if (Usage{SearchCalls: 1}).Add(Usage{SearchCalls: 2}).SearchCalls != 3 {
		t.Error("Add drops searches")
	}
}

func TestToolTurnIsWholeAndCounted(t *testing.T) {
	res := Result{FinishReason: "tool_calls", ToolCalls: []ToolCall{{ID: "c", Name: "read_file", Arguments: "{}"}}}
	if err := FinishError("p", res, "", 0); err != nil {
		t.Errorf("a turn of tool calls is an error: %v", err)
	}
	res.FinishReason = "length"
	if err := FinishError("p", res, "", 0); err == nil || err.Kind != KindTruncated {
		t.Errorf("a cut tool turn: %v", err)
	}
	plain := Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}
	withTools := plain
	withTools.Messages = append(withTools.Messages,
		Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "read_file", Arguments: `{"path":"` + string(make([]byte, 400)) + `"}`}}},
		Message{Role: RoleTool, ToolResults: []ToolResult{{CallID: "c", Content: string(make([]byte, 4000))}}})
	withTools.Tools = []ToolSpec{{Name: "read_file", Description: "reads", Parameters: map[string]any{"type": "object"}}}
	if a, b := EstimatePromptTokens(plain), EstimatePromptTokens(withTools); b < a+2200 {
		t.Errorf("tool traffic not counted: %d vs %d", a, b)
	}
}
