package mcp

import (
	"errors"

	"github.com/parleyhq/parley/debate/figures"
)

// DefaultMaxCost is a tool call's cost cap (USD) when neither the call
// (max_cost) nor the server (--max-cost, budget_usd) names one.
const DefaultMaxCost = 1.0

// checkMaxCost refuses a max_cost that is not a positive amount.
func checkMaxCost(asked *float64) error {
	if asked == nil {
		return nil
	}
	v, err := figures.Money("MCP argument max_cost", *asked)
	if err == nil && v == 0 {
		err = errors.New("MCP argument max_cost: 0 is not a positive amount of USD")
	}
	return err
}

// limit is a call's cost cap: the caller's max_cost, else the server's;
// the server's is also the ceiling, so a prompt cannot talk a client into
// raising it. The engine enforces it: no call starts whose worst case
// could pass it, and a model without a price cannot run under it.
func (s *Server) limit(asked *float64) float64 {
	server := s.opts.MaxCost
	if server <= 0 {
		server = DefaultMaxCost
	}
	if asked != nil && *asked > 0 && *asked < server {
		return *asked
	}
	return server
}
