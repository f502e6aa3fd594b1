package mcp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/store"
)

// UserHeader is the header parley serve names a /mcp request's user in
// (X-Parley-User, or its ?user_id=), as its API does.
const UserHeader = "X-Parley-User"

// SetLimits makes every tool call count under the spend windows of its
// user and of the server (parley serve's max_cost_per_hour and
// max_cost_per_day, shared with its API). Call it before serving.
func (s *Server) SetLimits(l *store.SpendLimits) {
	if l == nil {
		return
	}
	s.limits = l
	s.srv.AddReceivingMiddleware(s.callerOf)
}

type userKey struct{}

// callerOf notes a tool call's user (UserHeader) in its context.
func (s *Server) callerOf(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && call.Extra != nil && call.Extra.Header != nil {
			ctx = context.WithValue(ctx, userKey{}, call.Extra.Header.Get(UserHeader))
		}
		return next(ctx, method, req)
	}
}

// underLimits makes the run's meter count under the spend windows of the
// call's user, and records the session as that user's so its spend counts
// after a restart too.
func (r *run) underLimits(ctx context.Context) error {
	l := r.s.limits
	if l == nil {
		return nil
	}
	user, _ := ctx.Value(userKey{}).(string)
	windows, err := l.For(ctx, user)
	if err != nil {
		return err
	}
	r.eng.Meter().Under(windows)
	return l.Own(ctx, r.eng.Info().ID, user)
}

// isWindow reports a spend window's refusal: a tool error, unlike a
// call's own cap (an outcome the text states).
func isWindow(err error) bool {
	var ce *spend.CapError
	return errors.As(err, &ce) && ce.Reason == spend.CapWindow
}
