package providers

import (
	"fmt"
	"strings"
)

// Finish is a vendor's finish reason sorted into what Parley does with it.
type Finish string

const (
	FinishStop     Finish = "stop"     // a normal end
	FinishLength   Finish = "length"   // cut at the output-token limit
	FinishRefusal  Finish = "refusal"  // the model declined to answer
	FinishFiltered Finish = "filtered" // a safety or content filter stopped it, or the prompt was blocked
	FinishOther    Finish = "other"    // a reason Parley does not know: treated as a normal end
)

// BlockedPrefix starts the FinishReason an adapter reports when the prompt
// itself was blocked (Gemini's promptFeedback.blockReason).
const BlockedPrefix = "prompt_blocked:"

// ClassifyFinish sorts the finish reasons of every supported API: OpenAI
// Chat Completions (stop, length, content_filter, tool_calls), Responses
// (completed, incomplete: max_output_tokens / content_filter), Anthropic
// (end_turn, max_tokens, stop_sequence, tool_use, refusal, pause_turn) and
// Gemini (STOP, MAX_TOKENS, SAFETY, RECITATION, PROHIBITED_CONTENT, ...).
func ClassifyFinish(reason string) Finish {
	if strings.HasPrefix(reason, BlockedPrefix) {
		return FinishFiltered
	}
	switch strings.ToLower(strings.TrimSpace(reason)) {
	case "", "stop", "end_turn", "stop_sequence", "tool_use", "tool_calls", "function_call",
		"completed", "finish_reason_unspecified", "pause_turn":
		return FinishStop
	case "length", "max_tokens", "max_output_tokens", "model_context_window_exceeded":
		return FinishLength
	case "refusal":
		return FinishRefusal
	case "content_filter", "safety", "recitation", "prohibited_content", "blocklist", "spii",
		"image_safety", "language":
		return FinishFiltered
	}
	return FinishOther
}

// FinishError turns an abnormal end of an otherwise successful stream into
// the error the engine reports; nil for a normal end with text or tool
// calls. maxTokens
// is the limit the request asked for (0: the provider's default).
func FinishError(provider string, res Result, text string, maxTokens int) *Error {
	empty := strings.TrimSpace(text) == ""
	switch ClassifyFinish(res.FinishReason) {
	case FinishLength:
		n := res.Usage.OutputTokens
		if n == 0 {
			n = maxTokens
		}
		msg := fmt.Sprintf("(cut at %d output tokens — raise max_tokens)", n)
		if empty {
			msg = fmt.Sprintf("no answer: the output limit was spent before any text (%d output tokens, %d of them reasoning) — raise max_tokens",
				n, res.Usage.ReasoningTokens)
		}
		return &Error{Provider: provider, Kind: KindTruncated, Message: msg}
	case FinishRefusal:
		return &Error{Provider: provider, Kind: KindRefused, Message: reasonMessage("the model refused to answer", res)}
	case FinishFiltered:
		what := "the answer was blocked by a safety filter"
		if strings.HasPrefix(res.FinishReason, BlockedPrefix) {
			what = "the prompt was blocked"
		}
		return &Error{Provider: provider, Kind: KindRefused, Message: reasonMessage(what, res)}
	}
	if empty && len(res.ToolCalls) == 0 {
		// A turn that only calls tools has no text, and is whole.
		reason := res.FinishReason
		if reason == "" {
			reason = "none given"
		}
		return &Error{Provider: provider, Kind: KindEmpty, Message: "the model sent an empty answer (finish reason: " + reason + ")"}
	}
	return nil
}

func reasonMessage(what string, res Result) string {
	msg := what + " (" + strings.TrimPrefix(res.FinishReason, BlockedPrefix) + ")"
	if d := strings.TrimSpace(res.Detail); d != "" {
		if r := []rune(d); len(r) > 300 {
			d = string(r[:300]) + "…"
		}
		msg += ": " + d
	}
	return msg
}
