package mcp

import (
	"math"
	"strings"
	"testing"
)

// A tool call's max_cost goes through package figures: NaN, ±Inf, 0,
// negatives and absurd amounts are refused naming the argument.
func TestMaxCostArgumentIsAFiniteBoundedAmount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    float64
		want string
	}{
		{math.NaN(), "MCP argument max_cost: NaN is not a finite amount"},
		{math.Inf(1), "MCP argument max_cost: +Inf is not a finite amount"},
		{-1, "MCP argument max_cost: -1 is negative"},
		{0, "MCP argument max_cost: 0 is not a positive amount"},
		{1.7e308, "MCP argument max_cost: 1.7e+308 is over $100,000"},
		{0.5, ""},
	} {
		v := c.v
		err := checkMaxCost(&v)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("max_cost %v: %v, want %q", c.v, err, c.want)
		}
	}
}
