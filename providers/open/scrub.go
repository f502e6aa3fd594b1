package open

import (
	"context"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers"
)

// knownKeyVars are the vendors' key variables, scrubbed from every
// provider's errors: a proxy in front of one vendor may hold and echo
// another's key.
var knownKeyVars = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"}

// ScrubberFor scrubs the key values spec reads and the vendors' usual key
// variables, plus every key-shaped string (sanitize.Scrubber).
func ScrubberFor(spec providers.Spec, getenv func(string) string) *sanitize.Scrubber {
	var values []string
	for _, v := range append(providers.KeyVars(spec), knownKeyVars...) {
		values = append(values, getenv(v))
	}
	return sanitize.NewScrubber(values...)
}

// scrubbing is the one place errors leave an adapter: every error it
// returns, from Stream or from a stream, is scrubbed of keys, so the retry
// notices, the turn's entry, the error event and through them the console,
// headless output, store, exports, JSONL and the server never see one.
type scrubbing struct {
	inner providers.Provider
	s     *sanitize.Scrubber
}

func (p *scrubbing) Name() string { return p.inner.Name() }

func (p *scrubbing) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	st, err := p.inner.Stream(ctx, req)
	if err != nil {
		return nil, providers.ScrubError(p.s, err)
	}
	return &scrubbedStream{Stream: st, s: p.s}, nil
}

// Models lists the endpoint's models when the adapter can (parley doctor),
// its errors scrubbed too.
func (p *scrubbing) Models(ctx context.Context) ([]string, error) {
	l, ok := p.inner.(ModelLister)
	if !ok {
		return nil, ErrNoModelList
	}
	models, err := l.Models(ctx)
	return models, providers.ScrubError(p.s, err)
}

type scrubbedStream struct {
	providers.Stream
	s *sanitize.Scrubber
}

func (st *scrubbedStream) Err() error { return providers.ScrubError(st.s, st.Stream.Err()) }
