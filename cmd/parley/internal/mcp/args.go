package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inputSchema is In's input schema with the values the server knows (its
// agents, the MAGI presets) as enums, so a client sees them and a wrong
// one is refused before any session is made. enums maps an argument to its
// values; for a list argument they are its items' values.
func inputSchema[In any](enums map[string][]string) *jsonschema.Schema {
	sc, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(In), err))
	}
	plainTypes(sc)
	for name, values := range enums {
		p := sc.Properties[name]
		if p == nil {
			panic(fmt.Sprintf("mcp: %T has no argument %s", *new(In), name))
		}
		if p.Items != nil {
			p = p.Items
		}
		p.Enum = nil
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
	return sc
}

// validationErr pulls apart the SDK's schema errors ("validating
// \"arguments\": validating root: validating /properties/agents: enum: x
// does not equal any of: [a b]").
var (
	validationProp    = lazyregexp.New(`/properties/([^/:\s]+)`)
	validationEnum    = lazyregexp.New(`enum: (.*) does not equal any of`)
	validationMissing = lazyregexp.New(`missing properties: \[?"([^"]+)"`)
	validationExtra   = lazyregexp.New(`unexpected additional properties \[?"([^"]+)"`)
)

// plainArgError turns the SDK's schema error for a tool's arguments into
// one plain sentence naming the argument and what it accepts.
func plainArgError(sc *jsonschema.Schema, sdk string) string {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range sc.Properties {
			if !yield(n) {
				return
			}
		}
	})
	if m := validationExtra.FindStringSubmatch(sdk); m != nil {
		return fmt.Sprintf("%q is not an argument of this tool; its arguments are %s.", m[1], strings.Join(names, ", "))
	}
	if m := validationMissing.FindStringSubmatch(sdk); m != nil {
		return fmt.Sprintf("%s is required: %s.", m[1], describe(sc.Properties[m[1]]))
	}
	m := validationProp.FindStringSubmatch(sdk)
	if m == nil || sc.Properties[m[1]] == nil {
		return fmt.Sprintf("the arguments must be an object with %s.", strings.Join(names, ", "))
	}
	name, p := m[1], sc.Properties[m[1]]
	if e := validationEnum.FindStringSubmatch(sdk); e != nil {
		allowed := enumOf(p)
		if len(allowed) == 0 && p.Items != nil { // a list's names: the enum is its items'
			allowed = enumOf(p.Items)
		}
		return fmt.Sprintf("%s: unknown value %q; allowed values: %s.", name, e[1], strings.Join(allowed, ", "))
	}
	return fmt.Sprintf("%s must be %s.", name, describe(p))
}

// describe says in words what a schema accepts.
func describe(p *jsonschema.Schema) string {
	if p == nil {
		return "given"
	}
	types := append(slices.Clone(p.Types), p.Type)
	switch {
	case len(p.Enum) > 0:
		return "one of " + strings.Join(enumOf(p), ", ")
	case slices.Contains(types, "array"):
		if p.Items != nil && len(p.Items.Enum) > 0 {
			return "a list of names, each one of " + strings.Join(enumOf(p.Items), ", ")
		}
		return "a list of strings"
	case slices.Contains(types, "integer"):
		return "a whole number"
	case slices.Contains(types, "number"):
		return "a number"
	case slices.Contains(types, "boolean"):
		return "true or false"
	}
	return "a string"
}

func enumOf(p *jsonschema.Schema) []string {
	var out []string
	for _, v := range p.Enum {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// plainErrors is the server's receiving middleware for tools/call: a
// refused argument reads as one plain sentence (not the SDK's schema
// jargon), and no error text carries control characters.
func (s *Server) plainErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		call, ok := req.(*mcp.CallToolRequest)
		r, isTool := res.(*mcp.CallToolResult)
		if method != "tools/call" || !ok || !isTool || r == nil || !r.IsError {
			return res, err
		}
		sc := s.schemas[call.Params.Name]
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				if strings.HasPrefix(tc.Text, `validating "arguments"`) && sc != nil {
					tc.Text = plainArgError(sc, tc.Text)
				}
				tc.Text = oneLine(tc.Text)
			}
		}
		return res, err
	}
}
