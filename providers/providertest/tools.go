package providertest

import (
	"fmt"

	"github.com/parleyhq/parley/providers"
)

// What the fakes share for tool calls.

// argPieces splits a call's arguments into pieces of n bytes (one piece
// when n is 0 or the text is short); an empty text is one empty piece.
func argPieces(args string, n int) []string {
	if n <= 0 || len(args) <= n {
		return []string{args}
	}
	var out []string
	for len(args) > n {
		out = append(out, args[:n])
		args = args[n:]
	}
	return append(out, args)
}

// callID is the id a fake gives a call that has none.
func callID(c providers.ToolCall, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_fake_%d", i+1)
}
