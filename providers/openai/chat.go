package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

func (p *Provider) streamChat(ctx context.Context, req providers.Request) (providers.Stream, error) {
	creq, zeroTemp, err := chatRequest(req)
	if err != nil {
		return nil, p.badRequest(err)
	}
	if zeroTemp {
		ctx = adapt.WithBodyPatch(ctx, func(b []byte) []byte { return adapt.PrependJSONField(b, "temperature", "0") })
	}
	s := adapt.NewPullStream(ctx, p.name, p.timeout, apiError)
	reqCtx, slot := withBodySlot(s.ReqCtx)
	sdkStream, err := p.client.CreateChatCompletionStream(reqCtx, creq)
	if err != nil {
		perr := s.Classify(err)
		s.Cancel()
		return nil, perr
	}
	s.CloseSDK = sdkStream.Close
	lines, err := slot.lines() // see eventlines.go and textdelta.go
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	var st chatState
	var chunk openai.ChatCompletionStreamResponse
	s.Recv = func(res *providers.Result) (string, error) {
		raw, err := lines.next()
		if errors.Is(err, io.EOF) {
			// eventLines says EOF both at [DONE] and when the body just
			// ends; only a finish_reason tells the answer is whole.
			return "", adapt.EndOfStream(res)
		}
		if err != nil {
			return "", err
		}
		if err := decodeChatChunk(raw, &chunk); err != nil {
			return "", err
		}
		return st.chunk(chunk, res), nil
	}
	return s, nil
}

// chatRequest converts a Request to a streaming chat completion request.
// zeroTemp reports a temperature of exactly 0, which go-openai would omit
// (omitempty) and the caller adds to the body itself.
func chatRequest(req providers.Request) (out openai.ChatCompletionRequest, zeroTemp bool, err error) {
	if strings.TrimSpace(req.Model) == "" {
		return out, false, errors.New("no model configured")
	}
	info := req.Info
	if info.Provider == "" && !info.Known {
		info = providers.Family(req.Model)
	}
	out = openai.ChatCompletionRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if req.System != "" {
		out.Messages = append(out.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: req.System})
	}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, chatMessages(m)...)
	}
	out.Tools = chatTools(req.Tools)
	// A model whose tools need the Responses API refuses a tool-using
	// request here unless it carries no effort.
	toolsNeedResponses := usesTools(req) && info.ToolsAPI == "responses"
	if info.Reasoning && info.AcceptsEffort(req.Effort) && !toolsNeedResponses {
		out.ReasoningEffort = req.Effort
	}
	if req.MaxTokens > 0 {
		if info.Reasoning {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			// Compatible servers (Ollama, llama.cpp, vLLM) read max_tokens;
			// not every one knows max_completion_tokens.
			//lint:ignore SA1019 the field the compatible servers read
			out.MaxTokens = req.MaxTokens
		}
	}
	if req.Temperature != nil && info.AcceptsTemperature() {
		out.Temperature = float32(*req.Temperature)
		zeroTemp = out.Temperature == 0
	}
	if req.Schema != nil {
		name, schema, strict := responseSchema(req.Schema)
		out.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: name, Description: req.Schema.Description, Schema: jsonSchema(schema), Strict: strict,
			},
		}
	}
	return out, zeroTemp, nil
}

// jsonSchema lets a map stand where go-openai wants a json.Marshaler.
type jsonSchema map[string]any

func (s jsonSchema) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]any(s)) }

// responseSchema prepares a Schema for OpenAI's json_schema format. Strict
// mode needs every object closed (additionalProperties false) with all its
// properties required; the schema is adapted when that keeps its meaning,
// and sent non-strict when it has optional properties.
func responseSchema(s *providers.Schema) (name string, schema map[string]any, strict bool) {
	schema, strict = adapt.StrictSchema(s.JSON)
	return adapt.SchemaName(s.Name, "response"), schema, strict
}

// chatState follows one Chat Completions stream.
type chatState struct {
	calls adapt.ToolCalls
	last  int // the key of the last tool call delta
}

// chunk folds one stream chunk into res and returns its text. The
// usage chunk has no choices; some servers send usage on every chunk, and
// the last one wins.
func (st *chatState) chunk(chunk openai.ChatCompletionStreamResponse, res *providers.Result) string {
	if u := chunk.Usage; u != nil {
		res.Usage = providers.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
		if d := u.PromptTokensDetails; d != nil {
			res.Usage.CachedTokens = d.CachedTokens
		}
		if d := u.CompletionTokensDetails; d != nil {
			res.Usage.ReasoningTokens = d.ReasoningTokens
		}
	}
	if len(chunk.Choices) == 0 {
		return ""
	}
	choice := chunk.Choices[0]
	if len(choice.Delta.ToolCalls) > 0 {
		chatToolDeltas(choice.Delta.ToolCalls, &st.calls, &st.last)
		res.ToolCalls = st.calls.Calls()
	}
	if choice.FinishReason != "" && res.FinishReason != "refusal" {
		res.FinishReason = string(choice.FinishReason)
	}
	if r := choice.Delta.Refusal; r != "" {
		// A refusal streams instead of content; it is the reason, not the answer.
		res.Detail += r
		res.FinishReason = "refusal"
		return ""
	}
	return choice.Delta.Content
}
