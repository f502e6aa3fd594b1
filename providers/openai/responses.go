package openai

import (
	"context"
	"errors"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/internal/adapt"
)

func (p *Provider) streamResponses(ctx context.Context, req providers.Request) (providers.Stream, error) {
	rreq, err := responsesRequest(req)
	if err != nil {
		return nil, p.badRequest(err)
	}
	s := adapt.NewPullStream(ctx, p.name, p.timeout, apiError)
	reqCtx, slot := withBodySlot(s.ReqCtx)
	sdkStream, err := p.client.CreateResponseStream(reqCtx, rreq)
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
	var st responsesState
	var ev openai.ResponseStreamEvent
	s.Recv = func(res *providers.Result) (string, error) {
		raw, err := lines.next()
		if errors.Is(err, io.EOF) && !st.ended {
			// The Responses stream has no [DONE]: it ends after
			// response.completed. Ending before that is a cut connection.
			return "", io.ErrUnexpectedEOF
		}
		if err != nil {
			return "", err
		}
		if err := decodeResponsesEvent(raw, &ev); err != nil {
			return "", err
		}
		return st.event(ev, res)
	}
	return s, nil
}

// responsesRequest converts a Request to a Responses API request: the
// system prompt as instructions, the history as input messages, the
// schema as text.format json_schema. Nothing is stored on OpenAI's side
// (store false): every request carries its whole history.
func responsesRequest(req providers.Request) (openai.CreateResponseRequest, error) {
	if strings.TrimSpace(req.Model) == "" {
		return openai.CreateResponseRequest{}, errors.New("no model configured")
	}
	info := req.Info
	if info.Provider == "" && !info.Known {
		info = providers.Family(req.Model)
	}
	store := false
	out := openai.CreateResponseRequest{
		Model:        req.Model,
		Instructions: req.System,
		Store:        &store,
	}
	input := responsesInput(req.Messages)
	if len(input) == 0 {
		return openai.CreateResponseRequest{}, errors.New("no message to send")
	}
	out.Input = input
	out.Tools, out.MaxToolCalls = responsesTools(req)
	if len(req.Tools) > 0 && info.Reasoning {
		out.Include = []openai.ResponseInclude{includeReasoning}
	}
	if req.MaxTokens > 0 {
		out.MaxOutputTokens = req.MaxTokens
	}
	if info.AcceptsEffort(req.Effort) {
		out.Reasoning = &openai.ResponseReasoning{Effort: req.Effort}
	}
	if req.Temperature != nil && info.AcceptsTemperature() {
		t := float32(*req.Temperature) // a pointer: 0 is sent as 0
		out.Temperature = &t
	}
	if req.Schema != nil {
		name, schema, strict := responseSchema(req.Schema)
		out.Text = &openai.ResponseTextConfig{Format: &openai.ResponseTextFormat{
			Type: "json_schema", Name: name, Description: req.Schema.Description, Schema: schema, Strict: strict,
		}}
	}
	return out, nil
}

// responsesState follows one Responses stream.
type responsesState struct {
	ended bool // a terminal event (completed, incomplete, failed) arrived
	tools responsesToolState
}

// responseStreamError is an error the server reported inside the stream
// (an error event or response.failed).
type responseStreamError struct {
	typ, code, message string
}

func (e *responseStreamError) Error() string {
	if e.code != "" {
		return e.code + ": " + e.message
	}
	return e.message
}

// event folds one event into res and returns its text.
func (st *responsesState) event(ev openai.ResponseStreamEvent, res *providers.Result) (string, error) {
	st.tools.toolEvent(ev, res)
	switch ev.Type {
	case openai.ResponseStreamEventOutputTextDelta:
		return ev.Delta, nil
	case openai.ResponseStreamEventRefusalDelta:
		res.Detail += ev.Delta
		res.FinishReason = "refusal"
	case openai.ResponseStreamEventCompleted, openai.ResponseStreamEventIncomplete:
		st.ended = true
		if r := ev.Response; r != nil {
			res.Usage = responsesUsage(r.Usage)
			if d := r.IncompleteDetails; d != nil && d.Reason != "" {
				res.FinishReason = d.Reason // max_output_tokens or content_filter
			} else if res.FinishReason == "" {
				res.FinishReason = string(r.Status)
			}
		}
	case openai.ResponseStreamEventFailed:
		st.ended = true
		e := &responseStreamError{typ: "server_error", message: "the response failed"}
		if r := ev.Response; r != nil {
			res.Usage = responsesUsage(r.Usage)
			if r.Error != nil {
				e.code, e.message = r.Error.Code, r.Error.Message
				e.typ = r.Error.Code
			}
		}
		return "", e
	case openai.ResponseStreamEventError:
		st.ended = true
		code := ev.Code
		if ev.Error != nil && code == "" {
			code = ev.Error.Code
		}
		msg := ev.Message
		if msg == "" && ev.Error != nil {
			msg = ev.Error.Message
		}
		return "", &responseStreamError{typ: code, code: code, message: msg}
	}
	return "", nil
}

func responsesUsage(u *openai.ResponseUsage) providers.Usage {
	if u == nil {
		return providers.Usage{}
	}
	out := providers.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if d := u.InputTokensDetails; d != nil {
		out.CachedTokens = d.CachedTokens
		out.CacheWriteTokens = d.CacheWriteTokens
	}
	if d := u.OutputTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	return out
}
