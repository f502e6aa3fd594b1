package anthropic

import (
	"context"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/parleyhq/parley/providers"
)

// A turn with a server tool (web search) may end with stop_reason
// pause_turn: the API paused a long-running turn. Anthropic's server-tool
// reference says to pass the paused response back as-is in a subsequent
// request to let Claude continue its turn: the same request with the
// paused assistant content appended (no new user message). The adapter
// does that inside one Stream, so the engine sees one answer: its text
// streams on, usage and searches add up, the sources of every segment
// count. At most maxPauses continuations: a turn still paused after them
// ends with what it has.

// maxPauses bounds the continuations of one paused turn; the engine's
// worst case of a turn counts that many more requests a step.
const maxPauses = providers.MaxServerToolPauses

// pauser continues a paused turn.
type pauser struct {
	client   anthropic.Client
	params   anthropic.MessageNewParams
	content  []anthropic.ContentBlockParamUnion // the paused segments so far, as they came
	pauses   int
	usage    providers.Usage // the finished segments'
	searches int
}

// paused reports whether the segment that just ended paused and may be
// continued.
func (p *pauser) paused(res *providers.Result) bool {
	return res.FinishReason == string(anthropic.StopReasonPauseTurn) && p.pauses < maxPauses
}

// resume banks the paused segment (its content, usage and searches) and
// starts the next request with that content sent back as the assistant's.
func (p *pauser) resume(ctx context.Context, st *toolState, res *providers.Result) *ssestream.Stream[anthropic.MessageStreamEventUnion] {
	p.pauses++
	p.content = append(p.content, st.msg.ToParam().Content...)
	p.usage = p.usage.Add(res.Usage)
	p.searches += res.SearchCalls
	res.Usage, res.SearchCalls, res.FinishReason = providers.Usage{}, 0, ""
	st.searches = 0
	next := p.params
	next.Messages = append(append([]anthropic.MessageParam(nil), p.params.Messages...), anthropic.NewAssistantMessage(p.content...))
	return p.client.Messages.NewStreaming(ctx, next)
}

// total adds the finished segments to the last one's figures.
func (p *pauser) total(res *providers.Result) {
	res.Usage = res.Usage.Add(p.usage)
	res.SearchCalls = min(res.SearchCalls+p.searches, providers.MaxSearchCalls)
}
