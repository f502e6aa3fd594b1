package mcp

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
)

// The host in the loop for a client that cannot be asked during a call
// (it declared no elicitation, or speaks a protocol where a server may not
// ask mid-call): the run's first checkpoint ends the call with a paused
// result (Paused: the session, the point, how to answer), the point saved
// in the session as for a process that ended there; the checkpoint tool
// gives the answer and the run goes on from the point, to its end or to
// its next checkpoint (paused again).

// errPaused ends a call at a checkpoint its client answers later.
var errPaused = errors.New("this client cannot be asked during a call")

// pauseHost answers the first point with preset (the checkpoint tool's
// answer, nil for a new run); any other point pauses the call. A tool
// call under ask cannot wait across calls: it is refused, as without a
// host, with errPaused as the reason.
type pauseHost struct {
	mu     sync.Mutex
	preset *checkpoint.Answer
	at     *checkpoint.Point
	// shown measures the call's readable text; cut is its length when the
	// call paused (what follows is the run ending for the pause, not an
	// outcome). The engine asks a host only once every subscriber, the
	// printer included, has taken what came before the point.
	shown func() int
	cut   int
}

// Answer implements checkpoint.Host.
func (h *pauseHost) Answer(_ context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a := h.preset; a != nil {
		h.preset = nil
		return *a, nil
	}
	if p.Kind != checkpoint.KindTool {
		h.at = &p
		if h.shown != nil {
			h.cut = h.shown()
		}
	}
	return checkpoint.Answer{}, errPaused
}

// pausedAt is the point the call paused at, if it did.
func (h *pauseHost) pausedAt() (checkpoint.Point, bool) {
	if h == nil {
		return checkpoint.Point{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.at == nil {
		return checkpoint.Point{}, false
	}
	return *h.at, true
}

// Paused is a call's result when its run waits for the host: the session,
// where it waits, and how to answer.
type Paused struct {
	Status    string           `json:"status" jsonschema:"awaiting_host"`
	SessionID string           `json:"session_id"`
	Point     checkpoint.Point `json:"point" jsonschema:"kind (round, answers, rankings, …), round, of, summary, members, kept, choices"`
	Sentence  string           `json:"sentence" jsonschema:"where the run waits, as every door prints it"`
	HowTo     string           `json:"how_to" jsonschema:"how to answer: call the checkpoint tool"`
}

// pausedOf is the paused result of a run that waits at p.
func pausedOf(eng *debate.Engine, p checkpoint.Point) *Paused {
	id := eng.Info().ID
	return &Paused{Status: "awaiting_host", SessionID: id, Point: p, Sentence: checkpoint.PointSentence(p),
		HowTo: `call the checkpoint tool with {"session_id":"` + id + `","action":ACTION}, ACTION one of ` + choicesOf(p) +
			` ("text" for a note or a denial's reason, "member" to drop, "member" and "with" to swap)`}
}

// pausedText is the readable text of a paused result.
func (pz *Paused) text(before string) string {
	out := before
	if out != "" {
		out += "\n\n"
	}
	return out + clean(pz.Sentence) + "\n" + clean(pz.HowTo) + "\n\nsession " + pz.SessionID + " (resource parley://sessions/" + pz.SessionID + ")"
}

// choicesOf lists p's choices, with the members drop and swap take.
func choicesOf(p checkpoint.Point) string {
	var out []string
	for _, c := range p.Choices {
		s := string(c)
		if (c == checkpoint.Drop || c == checkpoint.Swap) && len(p.Members) > 0 {
			s += " (" + strings.Join(p.Members, ", ") + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// watch measures the run's text for pause (nil: the run does not pause).
func (r *run) watch(pause *pauseHost) {
	if pause != nil {
		pause.shown = r.text.Len
	}
}

// paused is the result of a call whose run paused at a checkpoint (ok
// false: it did not pause): the text shown up to the point, then where
// it waits and how to answer.
func (r *run) paused(pause *pauseHost) (*mcp.CallToolResult, *Paused, bool) {
	p, ok := pause.pausedAt()
	if !ok {
		return nil, nil, false
	}
	pz := pausedOf(r.eng, p)
	shown := r.text.String()
	pause.mu.Lock()
	if pause.shown != nil && pause.cut <= len(shown) {
		shown = shown[:pause.cut]
	}
	pause.mu.Unlock()
	return textResult(pz.text(strings.TrimSpace(shown))), pz, true
}
