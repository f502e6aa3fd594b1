package providers

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
// costs nothing: providers do not bill a request they refused.
func Charge(req Request, res Result, out Streamed, err error) Usage {
	u := res.Usage
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
