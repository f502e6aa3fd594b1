package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/sessionid"
)

// CheckpointInput is the checkpoint tool's arguments: the answer at the
// checkpoint a paused result named.
type CheckpointInput struct {
	SessionID string `json:"session_id" jsonschema:"the session_id of the paused result"`
	Action    string `json:"action" jsonschema:"one of the paused point's choices"`
	Text      string `json:"text,omitempty" jsonschema:"a note every member reads next round (note), or why a call is denied (deny)"`
	Member    string `json:"member,omitempty" jsonschema:"the member to drop or swap"`
	With      string `json:"with,omitempty" jsonschema:"the agent taking the member's seat (swap)"`
}

// CheckpointOutput is what the answer led to: the run went on to its end
// (status finished; its outcome is the text, and session_get has it all)
// or to its next checkpoint (status awaiting_host, paused as magi's).
type CheckpointOutput struct {
	SessionID string  `json:"session_id"`
	Status    string  `json:"status" jsonschema:"finished or awaiting_host"`
	Answered  string  `json:"answered" jsonschema:"what the answer did, as every door prints it"`
	Paused    *Paused `json:"paused,omitempty" jsonschema:"the next checkpoint the run waits at: answer it with this tool again"`
	Cancelled bool    `json:"cancelled"`
}

// maxName bounds a member or agent name in an answer.
const maxName = 64

// check refuses an answer no point could take, before any session is read.
func (in CheckpointInput) check() (checkpoint.Answer, error) {
	if err := sessionid.Check(in.SessionID); err != nil {
		return checkpoint.Answer{}, fmt.Errorf("session_id: %s", clean(err.Error()))
	}
	actions := []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Drop, checkpoint.Swap, checkpoint.Approve, checkpoint.Deny, checkpoint.Stop}
	a := checkpoint.Answer{Action: checkpoint.Action(in.Action), Text: in.Text, Member: in.Member, With: in.With}
	if !slices.Contains(actions, a.Action) {
		return a, fmt.Errorf("action: %q is not an action (one of continue, note, drop, swap, stop)", clip(in.Action))
	}
	if !utf8.ValidString(in.Text) || utf8.RuneCountInString(in.Text) > checkpoint.MaxText {
		return a, fmt.Errorf("text: at most %d characters of UTF-8", checkpoint.MaxText)
	}
	for field, v := range map[string]string{"member": in.Member, "with": in.With} {
		if len(v) > maxName || strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return a, fmt.Errorf("%s: not a name (at most %d characters, no control characters)", field, maxName)
		}
	}
	return a, nil
}

// clip bounds a value quoted back in an error.
func clip(s string) string {
	if len(s) > maxName {
		s = s[:maxName] + "…"
	}
	return clean(s)
}

// checkpointTool answers the checkpoint a paused call's run waits at and
// goes on with the run, in the session's own mode.
func (s *Server) checkpointTool(ctx context.Context, req *mcp.CallToolRequest, in CheckpointInput) (*mcp.CallToolResult, CheckpointOutput, error) {
	a, err := in.check()
	if err != nil {
		return nil, CheckpointOutput{}, err
	}
	id, err := s.opts.Store.Resolve(ctx, in.SessionID)
	if err != nil {
		return nil, CheckpointOutput{}, sessionErr(in.SessionID, err)
	}
	if err := s.claim(id); err != nil {
		return nil, CheckpointOutput{}, err
	}
	defer s.release(id)
	info, _, err := s.opts.Store.Load(ctx, id)
	if err != nil {
		return nil, CheckpointOutput{}, err
	}
	r, err := s.loadRun(ctx, id, info.Mode, nil)
	if err != nil {
		return nil, CheckpointOutput{}, err
	}
	defer r.close()
	pol := checkpoint.Policy(r.eng.State(stateCheckpoint))
	if pol == "" {
		return nil, CheckpointOutput{}, fmt.Errorf("session %s was not paused by an MCP call: answer it where it runs", id)
	}
	pending, ok := r.eng.Pending()
	if !ok {
		return nil, CheckpointOutput{}, fmt.Errorf("session %s: %w", id, debate.ErrNoPending)
	}
	if err := a.Check(pending.Point); err != nil {
		return nil, CheckpointOutput{}, fmt.Errorf("%s: %s", clean(checkpoint.PointSentence(pending.Point)), clean(err.Error()))
	}
	pause := &pauseHost{preset: &a}
	r.eng.SetHost(pause, pol)
	r.watch(pause)
	out := CheckpointOutput{SessionID: id, Status: "finished", Answered: checkpoint.AnswerSentence(pending.Point, a)}
	style, _ := strconv.Atoi(r.eng.State(stateCheckpointStyle)) // as the paused call printed (Conversation when unknown)
	r.print(headless.Style(style), "")
	r.reportProgress(ctx, req)
	runErr := r.goOn(ctx)
	out.Cancelled = ctx.Err() != nil
	if res, pz, ok := r.paused(pause); ok {
		out.Status, out.Paused = "awaiting_host", pz
		return res, out, nil
	}
	res := textResult(r.readable(ctx, runErr))
	res.IsError = runErr != nil && ctx.Err() == nil
	return res, out, nil
}

// goOn resumes the run at its saved checkpoint as submit runs a line.
func (r *run) goOn(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.s.life, cancel)()
	if err := r.underLimits(ctx); err != nil {
		return err
	}
	err := r.eng.ResumeCheckpoint(ctx)
	if errors.Is(err, errPaused) {
		err = nil
	}
	r.drain()
	if r.printer != nil {
		r.printer.EndExchange(err)
		r.printer.EndRun()
	}
	return err
}
