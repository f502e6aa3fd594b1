package openai

import (
	"encoding/json"
	"reflect"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// A text delta as OpenAI sends it (the obfuscation field pads a stream
// against length side channels) and as the wire-level fake sends it.
const (
	openAIDelta = `{"type":"response.output_text.delta","sequence_number":14,"item_id":"msg_68b1c2d3e4f5","output_index":1,"content_index":0,"delta":" answer","logprobs":[],"obfuscation":"Zt9XvPq"}`
	fakeDelta   = `{"content_index":0,"delta":" word","item_id":"msg_1","logprobs":[],"output_index":0,"sequence_number":4,"type":"response.output_text.delta"}`
)

// sameAsSDK checks decodeResponsesEvent against encoding/json decoding
// raw into the SDK's own event type, which is what go-openai's Recv does:
// both refuse it, or both give the same event. A text delta read by the
// scan carries only its type and delta, the two fields Parley reads of it.
func sameAsSDK(t *testing.T, raw []byte) {
	t.Helper()
	var want openai.ResponseStreamEvent
	wantErr := json.Unmarshal(raw, &want)
	var got openai.ResponseStreamEvent
	err := decodeResponsesEvent(raw, &got)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, the SDK's %v", raw, err, wantErr)
	}
	if err != nil {
		return
	}
	if _, scanned := textDelta(raw); scanned {
		if got.Type != want.Type || got.Delta != want.Delta {
			t.Fatalf("%q: scanned %q %q, the SDK read %q %q", raw, got.Type, got.Delta, want.Type, want.Delta)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, the SDK %+v", raw, got, want)
	}
}

// scanCase is an input a scan reads, and the text it must read from it.
type scanCase struct{ raw, text string }

// checkScan runs scan on every case: it reads each of scanned, and leaves
// each of left to the SDK's type; same holds the decoder to the SDK on
// both.
func checkScan(t *testing.T, scan func([]byte) (string, bool), same func(*testing.T, []byte), scanned []scanCase, left []string) {
	t.Helper()
	for _, c := range scanned {
		if got, ok := scan([]byte(c.raw)); !ok || got != c.text {
			t.Errorf("%q: scanned %q, %v; want %q", c.raw, got, ok, c.text)
		}
		same(t, []byte(c.raw))
	}
	for _, raw := range left {
		if got, ok := scan([]byte(raw)); ok {
			t.Errorf("%q: scanned %q; want it left to the SDK", raw, got)
		}
		same(t, []byte(raw))
	}
}

func TestTextDeltaScan(t *testing.T) {
	scanned := []scanCase{
		{openAIDelta, " answer"},
		{fakeDelta, " word"},
		{" {\n\"type\" : \"response.output_text.delta\" ,\t\"delta\":\"\"}\r\n", ""},
		{`{"type":"response.output_text.delta","delta":"line\nnext \"quoted\" caf\u00e9 \ud83d\ude00 \/"}`, "line\nnext \"quoted\" café 😀 /"},
		{`{"type":"response.output_text.delta","delta":"bad ` + "\xff" + ` byte"}`, "bad \uFFFD byte"},
		{`{"type":"response.output_text.delta","delta":"a","delta":"b"}`, "b"}, // the last wins, as in encoding/json
		{`{"type":"response.output_text.delta","delta":"x","sequence_number":-0,"output_index":999999999999999999,"logprobs":null}`, "x"},
	}
	// Each of these is left to the SDK's type: the scan is not sure of it.
	left := []string{
		`{"type":"response.output_text.done","text":"whole"}`,
		`{"type":"response.refusal.delta","delta":"no"}`,
		`{"Type":"response.output_text.delta","delta":"x"}`,                    // encoding/json matches keys in any case
		`{"type":"response.output_text.delta","DELTA":"x"}`,                    // the same
		`{"type":"response.output_text.delta","delta":"x","text":"y"}`,         // a field Parley would not see
		`{"type":"response.output_text.delta","delta":"x","output_index":1.5}`, // the SDK refuses it
		`{"type":"response.output_text.delta","delta":"x","output_index":1e2}`,
		`{"type":"response.output_text.delta","delta":"x","output_index":01}`,
		`{"type":"response.output_text.delta","delta":"x","output_index":9999999999999999999}`,
		`{"type":"response.output_text.delta","delta":"x","logprobs":[{"token":"x","logprob":-0.1}]}`,
		`{"type":"response.output_text.delta","delta":"x","item_id":"m\u0073g"}`,
		`{"type":"response.output_text.delta"}`,
		`{"delta":"x"}`,
		`{"type":"response.output_text.delta","delta":"x"} {}`,
		`{"type":"response.output_text.delta","delta":"x",}`,
		`{"type":"response.output_text.delta","delta":"x\q"}`,
		"{\"type\":\"response.output_text.delta\",\"delta\":\"raw\ttab\"}",
		"{\"type\":\"response.output_text.delta\",\"delta\":\"unit\x1fseparator\"}", // the last control character
		`{"type":"response.output_text.delta","delta":"unterminated}`,
		`{"type":"response.output_text.delta","delta":"x","logprobs":nul}`,
		`{"type":"response.output_text.delta","delta":null}`,
		`[]`,
		``,
	}
	checkScan(t, textDelta, sameAsSDK, scanned, left)
}

// FuzzTextDelta holds the scan to encoding/json on the SDK's type: any
// event, well formed or not, decodes the same or fails on both.
func FuzzTextDelta(f *testing.F) {
	f.Add(openAIDelta)
	f.Add(fakeDelta)
	f.Add(`{"type":"response.output_text.delta","delta":"\ud83d\ude00 \u00e9\n","output_index":-12}`)
	f.Add(`{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":3,"output_tokens":4}}}`)
	f.Add(`{"type":"response.output_text.delta","delta":"x","logprobs":[ ]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		sameAsSDK(t, []byte(raw))
	})
}

// Chunks of text as OpenAI, Ollama and llama.cpp send them.
const (
	openAIChunk = `{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{"content":" answer"},"logprobs":null,"finish_reason":null}],"usage":null}`
	ollamaChunk = `{"id":"chatcmpl-512","object":"chat.completion.chunk","created":1741570283,"model":"llama3.2","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}`
	llamaChunk  = `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" there"}}],"created":1741570283,"id":"chatcmpl-x","model":"gpt-3.5-turbo","system_fingerprint":"b4999-f0cd3e8c","object":"chat.completion.chunk"}`
)

// sameAsSDKChat is sameAsSDK for Chat Completions: a chunk read by the
// scan has one choice whose text is the SDK's, and nothing else Parley
// reads of a chunk (usage, tool calls, refusal, finish reason).
func sameAsSDKChat(t *testing.T, raw []byte) {
	t.Helper()
	var want openai.ChatCompletionStreamResponse
	wantErr := json.Unmarshal(raw, &want)
	got := openai.ChatCompletionStreamResponse{Choices: make([]openai.ChatCompletionStreamChoice, 1)}
	got.Choices[0].FinishReason = "stop" // left from an earlier chunk: never kept
	err := decodeChatChunk(raw, &got)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, the SDK's %v", raw, err, wantErr)
	}
	if err != nil {
		return
	}
	if _, scanned := chatContent(raw); scanned {
		if len(want.Choices) != 1 || want.Usage != nil {
			t.Fatalf("%q: scanned, but the SDK read %d choices, usage %v", raw, len(want.Choices), want.Usage)
		}
		w, g := want.Choices[0].Delta, got.Choices[0]
		if len(got.Choices) != 1 || g.Delta.Content != w.Content || g.FinishReason != want.Choices[0].FinishReason ||
			w.Refusal != "" || len(w.ToolCalls) > 0 || w.FunctionCall != nil || got.Usage != nil {
			t.Fatalf("%q: scanned %+v, the SDK read %+v", raw, got, want)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, the SDK %+v", raw, got, want)
	}
}

func TestChatContentScan(t *testing.T) {
	scanned := []scanCase{
		{openAIChunk, " answer"},
		{ollamaChunk, "Hi"},
		{llamaChunk, " there"},
		{`{"choices":[{"delta":{"content":"a\nb \u00e9"}}]}`, "a\nb é"},
		{` { "choices" : [ { "delta" : { "content" : "" } } ] } `, ""},
		// A second array is decoded into the first one's choice, as in encoding/json.
		{`{"choices":[{"delta":{"content":"x"}}],"choices":[{"delta":{"content":"y"}}]}`, "y"},
		{`{"choices":[{"delta":{"content":"x"}}],"choices":[{"delta":{"role":"assistant"}}]}`, "x"},
	}
	left := []string{
		`{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}`,
		`{"choices":[{"delta":{"content":"x"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
		`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
		`{"choices":[{"delta":{"content":"x"}},{"delta":{"content":"y"}}]}`,
		`{"choices":[{"delta":{"refusal":"no"}}]}`,
		`{"choices":[{"delta":{"content":null,"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]}}]}`,
		`{"choices":[{"delta":{"reasoning_content":"hm"}}]}`,
		`{"choices":[{"delta":{"Content":"x"}}]}`,
		`{"choices":[{"delta":{"content":"x","role":"user"}}]}`,
		`{"choices":[{"delta":{"content":"x"},"index":"0"}]}`,
		`{"choices":[{"delta":{"content":"x"}}],"created":1.5}`,
		`{"choices":[{"delta":{"content":"x"}}],"model":7}`,
		`{"choices":[{"delta":{"content":"x"}}]`,
		`{"choices":[{"delta":{"content":"x"}}]}}`,
		`{"choices":{"delta":{"content":"x"}}}`,
		`{}`,
	}
	checkScan(t, chatContent, sameAsSDKChat, scanned, left)
}

// FuzzChatContent holds the chunk scan to encoding/json on the SDK's type.
func FuzzChatContent(f *testing.F) {
	f.Add(openAIChunk)
	f.Add(ollamaChunk)
	f.Add(llamaChunk)
	f.Add(`{"choices":[{"index":0,"delta":{"content":"\ud83d\ude00"},"finish_reason":"length"}],"usage":null}`)
	f.Fuzz(func(t *testing.T, raw string) {
		sameAsSDKChat(t, []byte(raw))
	})
}

// BenchmarkDecodeResponsesEvent: one text delta as OpenAI sends it,
// through the SDK's decode (what go-openai's Recv does after reading the
// line) and through decodeResponsesEvent.
//
//	go test -run '^$' -bench BenchmarkDecodeResponsesEvent -benchmem ./providers/openai/
func BenchmarkDecodeResponsesEvent(b *testing.B) {
	raw := []byte(openAIDelta)
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			var ev openai.ResponseStreamEvent
			if err := json.Unmarshal(raw, &ev); err != nil || ev.Delta != " answer" {
				b.Fatal(err)
			}
		}
	})
	b.Run("parley", func(b *testing.B) {
		var ev openai.ResponseStreamEvent
		for b.Loop() {
			if err := decodeResponsesEvent(raw, &ev); err != nil || ev.Delta != " answer" {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeChatChunk: BenchmarkDecodeResponsesEvent for a chunk of
// Chat Completions text.
//
//	go test -run '^$' -bench BenchmarkDecodeChatChunk -benchmem ./providers/openai/
func BenchmarkDecodeChatChunk(b *testing.B) {
	raw := []byte(openAIChunk)
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			var c openai.ChatCompletionStreamResponse
			if err := json.Unmarshal(raw, &c); err != nil || c.Choices[0].Delta.Content != " answer" {
				b.Fatal(err)
			}
		}
	})
	b.Run("parley", func(b *testing.B) {
		var c openai.ChatCompletionStreamResponse
		for b.Loop() {
			if err := decodeChatChunk(raw, &c); err != nil || c.Choices[0].Delta.Content != " answer" {
				b.Fatal(err)
			}
		}
	})
}
