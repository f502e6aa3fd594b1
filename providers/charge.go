package providers

import "fmt"

// What a call consumed when the provider's final usage never came (a cut
// stream, a cancel, an error mid-stream, a client gone): providers bill the
// prompt and every token streamed whether or not the stream finished, so
// Parley counts them itself and marks the figures estimated.

// EstimatePromptTokens is Parley's own count of a request's prompt: two
// bytes a token (real tokenizers average about four on prose, so it errs
// high), 8 bytes of framing a message and 16 tokens for the request. The
// worst case a cap admits a call by and the charge of a call whose usage
// never came both use it.
func EstimatePromptTokens(req Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content) + 8
		// Tool calls, their results and replayed reasoning are prompt too.
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments) + len(c.ID) + 8
		}
		for _, r := range m.ToolResults {
			n += len(r.Content) + len(r.CallID) + 8
		}
		n += len(m.Replay)
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + 8
		for k, v := range t.Parameters {
			n += len(k) + len(fmt.Sprint(v))
		}
	}
	return n/2 + 16
}

// Streamed is what a stream delivered, counted by Parley as it arrived.
type Streamed struct {
	Bytes  int // text bytes
	Chunks int // non-empty text deltas
}

// Add counts one delta.
func (s *Streamed) Add(delta string) {
	if delta != "" {
		s.Bytes += len(delta)
		s.Chunks++
	}
}

// EstimateOutputTokens counts streamed text: four bytes a token (no Go
// tokenizer of any supported family is a dependency), and never fewer
// tokens than chunks, since every vendor streams at least one token a
// chunk.
func EstimateOutputTokens(s Streamed) int { return max((s.Bytes+3)/4, s.Chunks) }

// Charge is what one attempt of a call consumed. A stream that ended
// normally with the provider's usage is charged that usage. Otherwise the
// figures the provider gave (an input count at the start, a running
// total) are kept and completed: the prompt by EstimatePromptTokens when
// no input count came, the output by EstimateOutputTokens of what streamed
// when that is more than the count that came; the result is marked
// Estimated, since no final figures came. An attempt the server never
// answered (an HTTP error, a refused connection) with nothing streamed
// costs nothing: providers do not bill a request they refused. The
// server-side searches the result reports are charged in every case.
func Charge(req Request, res Result, out Streamed, err error) Usage {
	u := res.Usage
	// A search the vendor ran is billed however the stream ended.
	u.SearchCalls = min(max(u.SearchCalls, res.SearchCalls, 0), MaxSearchCalls)
	if err == nil && u.Total() > 0 {
		return u
	}
	if !res.Answered && u.Total() == 0 && out.Bytes == 0 {
		return u
	}
	if u.InputTokens == 0 {
		u.InputTokens = EstimatePromptTokens(req)
	}
	u.OutputTokens = max(u.OutputTokens, EstimateOutputTokens(out))
	u.Estimated = true
	return u
}
