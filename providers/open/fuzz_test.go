package open_test

import (
	"context"
	"errors"
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// Whatever bytes a server sends as the SSE body, an adapter must end the
// stream with text and/or a *Error, never a panic or a hang.

func FuzzOpenAIStream(f *testing.F) {
	for _, seed := range append(commonSeeds(),
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":2}}}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{}]}\n\n",
		"data: {\"choices\":null,\"usage\":{\"prompt_tokens\":\"many\"}}\n\n",
		"data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n",
		"data: {\"error\":{}}\n\n",
		"data: {\"error\": 42\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"cut",
		"data: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"after done\"}}]}\n\n",
		strings.Repeat("event: x\n\n", 400),
	) {
		f.Add([]byte(seed))
	}
	fuzzAdapter(f, vendorNamed("openai"))
}

func FuzzOpenAIResponsesStream(f *testing.F) {
	for _, seed := range append(commonSeeds(),
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\nevent: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1,\"input_tokens_details\":{\"cached_tokens\":2},\"output_tokens_details\":{\"reasoning_tokens\":1}}}}\n\n",
		"event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":{\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n",
		"event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"server_error\",\"message\":\"x\"}}}\n\n",
		"event: error\ndata: {\"type\":\"error\",\"code\":null,\"message\":7}\n\n",
		"data: {\"type\":\"response.completed\",\"response\":null}\n\n",
		"data: {\"type\":\"response.refusal.delta\",\"delta\":\"no\"}\n\n",
		"data: {\"type\":\"response.output_text.delta\",\"delta\":\"cut",
	) {
		f.Add([]byte(seed))
	}
	fuzzAdapter(f, vendorNamed("openai-responses"))
}

func FuzzAnthropicStream(f *testing.F) {
	for _, seed := range append(commonSeeds(),
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n"+
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":null}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":7}}\n\n",
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":\"nope\"}\n\n",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":-9999999999999999999}}\n\n",
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
		"event: error\ndata: not json\n\n",
		"event: ping\ndata: {}\n\n: comment\n\n",
	) {
		f.Add([]byte(seed))
	}
	fuzzAdapter(f, vendorNamed("anthropic"))
}

func FuzzGeminiStream(f *testing.F) {
	for _, seed := range append(commonSeeds(),
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":1,\"cachedContentTokenCount\":2}}\n\n",
		"data: {\"candidates\":\"x\"}\n\n",
		"data: {\"candidates\":[null,{}]}\n\n",
		"data: {\"candidates\":[{\"content\":{\"parts\":[null,{\"text\":1}]}}]}\n\n",
		"data: {\"usageMetadata\":{\"promptTokenCount\":\"many\"}}\n\n",
		"data: {\"error\":{\"code\":503,\"message\":\"overloaded\",\"status\":\"UNAVAILABLE\"}}\n\n",
		"data: {\"error\":\"flat\"}\n\n",
		"data: {\"candidates\":[{\"continuationToken\":\"AAAA\",\"finishReason\":\"CONTINUATION\"}]}\n\n",
		"{\"error\":{\"code\":400}}\n\n",
		"data: null\n\n",
		"data: []\n\n",
	) {
		f.Add([]byte(seed))
	}
	fuzzAdapter(f, vendorNamed("gemini"))
}

// commonSeeds are bodies every parser should survive.
func commonSeeds() []string {
	return []string{
		"",
		"\n\n\n",
		"data:\n\n",
		"data: \n\n",
		"data: {}\n\n",
		"data: {\n\n",
		"data: \x00\xff\xfe\n\n",
		"garbage without any structure",
		// Kept short: the fuzzer minimizes interesting inputs byte by byte,
		// one HTTP round trip each. TestAdapterHugeChunk covers huge lines.
		"data: " + strings.Repeat("a", 4_000) + "\n\n",
		"data: \"" + strings.Repeat("é", 1_000) + "\"\n\n",
		"\r\n\r\ndata: {}\r\n\r\n",
	}
}

// fuzzAdapter serves each input from one fake server for the whole run.
func fuzzAdapter(f *testing.F, v vendor) {
	log.SetOutput(io.Discard) // genai logs malformed streams
	var (
		mu   sync.Mutex
		body []byte
	)
	srv := v.fake(f, func(providertest.Request) providertest.Reply {
		mu.Lock()
		defer mu.Unlock()
		return providertest.Reply{Raw: append([]byte{}, body...)}
	})
	spec := providers.Spec{Type: v.typ, BaseURL: srv.URL, APIKeyEnv: "K", Timeout: 5 * time.Second}
	p, err := open.WithPolicy(v.name, spec, envMap("K", "k"), providers.RetryPolicy{Max: -1})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mu.Lock()
		body = data
		mu.Unlock()
		s, err := p.Stream(context.Background(), providers.Request{Model: v.model, Messages: history()})
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		defer s.Close()
		deltas := 0
		for s.Next() {
			deltas++
			if deltas > len(data)+1 {
				t.Fatalf("%d deltas from %d bytes", deltas, len(data))
			}
		}
		if err := s.Err(); err != nil {
			checkFuzzError(t, err)
		}
		if u := s.Result().Usage; u.InputTokens < 0 && u.OutputTokens < 0 {
			t.Logf("negative usage passed through: %+v", u)
		}
	})
}

func checkFuzzError(t *testing.T, err error) {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *providers.Error", err, err)
	}
	if pe.Kind == providers.KindCanceled {
		t.Fatalf("spurious cancel: %v", err)
	}
}
