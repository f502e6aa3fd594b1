package openaiapi

import (
	"github.com/parleyhq/parley/debate/sanitize"
	"net/http"
	"sync"
	"time"
)

// sse writes one streamed completion; the engine's subscriber and the
// keep-alive write from their own goroutines, so every write holds mu.
type sse struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	base    chunk
	started bool
}

func (s *sse) write(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.w.Write(line)
	_ = s.rc.Flush()
}

// send writes one chunk as an SSE message.
func (s *sse) send(c chunk) {
	data, _ := sanitize.MarshalJSON(c)
	s.write(append(append([]byte("data: "), data...), '\n', '\n'))
}

// delta sends a piece of text with the role on the first chunk.
func (s *sse) delta(d delta) {
	c := s.base
	s.mu.Lock()
	if !s.started {
		d.Role, s.started = "assistant", true
	}
	s.mu.Unlock()
	c.Choices = []chunkChoice{{Delta: d}}
	s.send(c)
}

// stream answers with Server-Sent Events: the deliberation as
// reasoning_content deltas while it happens, the answer as content, a
// last chunk with finish_reason (and the usage when asked), then [DONE].
func (d *Door) stream(w http.ResponseWriter, r *http.Request, c *call, ss Session) {
	ctx, cancel := runCtx(r)
	defer cancel()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	out := &sse{w: w, rc: http.NewResponseController(w),
		base: chunk{ID: completionID(ss), Object: "chat.completion.chunk", Created: d.opts.Now().Unix(), Model: c.req.Model}}
	out.delta(delta{}) // the role at once: the client knows the request was taken
	stopPing := d.keepAlive(out)
	tr := newTranslator(c.target.headings,
		func(s string) { out.delta(delta{ReasoningContent: s}) },
		func(s string) { out.delta(delta{Content: s}) })
	unsub := ss.Engine().Subscribe(tr.sink)
	runErr := ss.Run(ctx, c.target.prefix+c.conv.question)
	unsub()
	stopPing()
	o, ext := d.finish(ctx, c, ss, tr, runErr)
	if ctx.Err() != nil {
		return
	}
	if o.err != nil {
		// The openai SDKs raise a data line holding "error"; no [DONE]
		// follows, so no client reads the run as a finished answer.
		data, _ := sanitize.MarshalJSON(errorBody{Error: o.err, Parley: &ext})
		out.write(append(append([]byte("data: "), data...), '\n', '\n'))
		return
	}
	last := out.base
	last.Choices = []chunkChoice{{Delta: delta{}, FinishReason: &o.finish}}
	if c.req.StreamOptions == nil || !c.req.StreamOptions.IncludeUsage {
		last.Parley = &ext
	}
	out.send(last)
	if c.req.StreamOptions != nil && c.req.StreamOptions.IncludeUsage {
		u := usageOf(o.usage)
		final := out.base
		final.Choices = []chunkChoice{}
		final.Usage, final.Parley = &u, &ext
		out.send(final)
	}
	out.write([]byte("data: [DONE]\n\n"))
}

// keepAlive writes an SSE comment while nothing else is said, so proxies
// and clients do not give up on a council that thinks before it speaks.
func (d *Door) keepAlive(out *sse) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(d.opts.PingEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				out.write([]byte(": keep-alive\n\n"))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
