package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
)

// The host in the loop over MCP: a magi or council call with a checkpoint policy
// asks the client's user at each checkpoint through elicitation
// (elicitation/create), when the client declared it can and negotiated a
// protocol in which a server may ask during a call (before 2026-07-28,
// whose multi round-trip requests, SEP-2322, Parley does not speak yet);
// any other client gets a paused result and answers with the checkpoint
// tool (pause.go).

// elicitFrom is the first protocol version where a server may not send
// elicitation/create while it serves a call.
const elicitFrom = "2026-07-28"

// elicitHost asks the client at each checkpoint.
type elicitHost struct{ session *mcp.ServerSession }

// Answer implements checkpoint.Host: a form with the checkpoint's choices;
// accept answers with the form, decline continues (at a tool call: denies
// it), cancel ends the run.
func (h elicitHost) Answer(ctx context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
	actions := make([]string, len(p.Choices))
	for i, c := range p.Choices {
		actions[i] = string(c)
	}
	props := map[string]any{
		"action": map[string]any{"type": "string", "enum": actions, "description": p.Prompt()},
		"text":   map[string]any{"type": "string", "maxLength": checkpoint.MaxText, "description": "a note every member reads next round, or why the tool call is denied"},
	}
	names := p.Droppable()
	if slices.Contains(p.Choices, checkpoint.Swap) {
		names = p.Swappable() // a seat kept from a drop may still be swapped
	}
	if len(names) > 0 {
		props["member"] = map[string]any{"type": "string", "enum": names, "description": "the member to drop, or whose seat another agent takes (swap)"}
	}
	if len(p.Agents) > 0 {
		props["with"] = map[string]any{"type": "string", "enum": p.Agents, "description": "swap: the agent taking the member's seat"}
	}
	res, err := h.session.Elicit(ctx, &mcp.ElicitParams{Message: checkpoint.PointSentence(p),
		RequestedSchema: map[string]any{"type": "object", "properties": props, "required": []string{"action"}}})
	if err != nil {
		return checkpoint.Answer{}, fmt.Errorf("asking the client at the checkpoint: %w", err)
	}
	switch res.Action {
	case "accept":
	case "decline":
		if p.Kind == checkpoint.KindTool {
			return checkpoint.Answer{Action: checkpoint.Deny, Text: "declined by the host"}, nil
		}
		return checkpoint.Answer{Action: checkpoint.Continue}, nil
	default:
		return checkpoint.Answer{}, errors.New("the client dismissed the checkpoint")
	}
	a := checkpoint.Answer{Action: checkpoint.Action(str(res.Content["action"])), Text: str(res.Content["text"]), Member: str(res.Content["member"]), With: str(res.Content["with"])}
	if err := a.Check(p); err != nil {
		return checkpoint.Answer{}, fmt.Errorf("the client's answer at the checkpoint: %w", err)
	}
	return a, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// stateCheckpoint is the session state key of the policy an MCP call
// gave its run: the checkpoint tool answers only sessions that have it
// (never a console's or serve's), and goes on under it.
const (
	stateCheckpoint      = "mcp.checkpoint"
	stateCheckpointStyle = "mcp.checkpoint.style"
)

// hostFor gives a run the client as its host under policy ("" or never:
// no host, the run never waits): through elicitation when the client can
// be asked during a call, else a pause (pauseHost): the call ends with a
// paused result and the checkpoint tool answers.
func hostFor(eng *debate.Engine, req *mcp.CallToolRequest, policy string, style headless.Style) (*pauseHost, error) {
	pol, err := checkpoint.ParsePolicy(policy)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if pol == checkpoint.Never {
		return nil, nil
	}
	eng.SetState(stateCheckpoint, string(pol))
	eng.SetState(stateCheckpointStyle, strconv.Itoa(int(style))) // how the checkpoint tool prints the rest
	var init *mcp.InitializeParams
	if req != nil && req.Session != nil {
		init = req.Session.InitializeParams()
	}
	if init == nil || init.Capabilities == nil || init.Capabilities.Elicitation == nil || init.ProtocolVersion >= elicitFrom {
		h := &pauseHost{}
		eng.SetHost(h, pol)
		return h, nil
	}
	eng.SetHost(elicitHost{session: req.Session}, pol)
	return nil, nil
}
