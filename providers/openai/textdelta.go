package openai

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// Why Parley decodes the stream's events itself: nearly every event of an
// answer carries a few words of text, and go-openai's Recv decodes each into
// its full event type with encoding/json — about 3 µs an event, more CPU a
// token than the whole rest of Parley (docs/benchmarks.md, "Streaming, round
// 5"). The SDK still builds and sends the request and reports an error
// status, and every event but text is decoded into its types. Only text in
// its usual shape is read here, by a scan that accepts nothing it is not sure of: any other event,
// or text beside an unknown field, an escaped key, a number that is not a
// plain integer or anything else unusual, goes to the SDK's type unchanged.
// FuzzTextDelta and FuzzChatContent hold each scan to encoding/json's
// answer on the SDK's type.

// decodeResponsesEvent decodes one event of a Responses stream into ev, as
// go-openai's Recv would.
func decodeResponsesEvent(raw []byte, ev *openai.ResponseStreamEvent) error {
	if delta, ok := textDelta(raw); ok {
		*ev = openai.ResponseStreamEvent{Type: openai.ResponseStreamEventOutputTextDelta, Delta: delta}
		return nil
	}
	*ev = openai.ResponseStreamEvent{}
	return json.Unmarshal(raw, ev)
}

// textDelta reads a response.output_text.delta event whose every field is
// one Parley knows the shape of, and returns its delta. ok is false for
// anything else, including every input encoding/json would refuse.
func textDelta(raw []byte) (delta string, ok bool) {
	s := eventScan{b: raw}
	var sawType, sawDelta bool
	whole := s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			v, ok := s.plainString()
			sawType = true
			return ok && string(v) == string(openai.ResponseStreamEventOutputTextDelta)
		case "delta":
			delta, sawDelta = s.stringValue()
			return sawDelta
		case "item_id", "obfuscation":
			_, ok := s.plainString()
			return ok
		case "output_index", "content_index", "sequence_number":
			return s.smallInt()
		case "logprobs":
			return s.emptyList()
		}
		return false // a field the SDK may read differently, or a key in another case
	})
	return delta, whole && sawType && sawDelta && s.end()
}

// decodeChatChunk decodes one chunk of a Chat Completions stream into c,
// as go-openai's Recv would. A chunk of text reuses c's one choice.
func decodeChatChunk(raw []byte, c *openai.ChatCompletionStreamResponse) error {
	if content, ok := chatContent(raw); ok {
		choices := c.Choices[:0]
		if cap(choices) == 0 {
			choices = make([]openai.ChatCompletionStreamChoice, 0, 1)
		}
		*c = openai.ChatCompletionStreamResponse{Choices: append(choices, openai.ChatCompletionStreamChoice{
			Delta: openai.ChatCompletionStreamChoiceDelta{Content: content},
		})}
		return nil
	}
	*c = openai.ChatCompletionStreamResponse{}
	return json.Unmarshal(raw, c)
}

// chatContent reads a chunk of one choice whose delta is text (and perhaps
// the assistant's role), unfinished, without usage, every field one Parley
// knows the shape of — what OpenAI, Ollama, llama.cpp and vLLM send for
// each piece of an answer — and returns the text. ok is false for anything
// else, including every input encoding/json would refuse.
func chatContent(raw []byte) (content string, ok bool) {
	s := eventScan{b: raw}
	var sawContent bool // only a choice's delta holds content
	delta := func(key []byte) bool {
		switch string(key) {
		case "content":
			content, sawContent = s.stringValue()
			return sawContent
		case "role":
			v, ok := s.plainString()
			return ok && string(v) == openai.ChatMessageRoleAssistant
		}
		return false // a tool call, a refusal, reasoning: the SDK's type
	}
	choice := func(key []byte) bool {
		switch string(key) {
		case "index":
			return s.smallInt()
		case "delta":
			return s.object(delta)
		case "logprobs", "finish_reason":
			return s.null()
		}
		return false
	}
	whole := s.object(func(key []byte) bool {
		switch string(key) {
		case "id", "object", "model", "system_fingerprint", "service_tier", "obfuscation":
			_, ok := s.plainString()
			return ok
		case "created":
			return s.smallInt()
		case "usage":
			return s.null()
		case "choices": // exactly one; a second array wins whole, as in encoding/json
			return s.next('[') && s.object(choice) && s.next(']')
		}
		return false
	})
	return content, whole && sawContent && s.end()
}
