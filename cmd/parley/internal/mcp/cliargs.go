package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parleyhq/parley/debate/figures"
)

// plainTypes gives every property of sc one plain JSON type: jsonschema-go
// writes an optional number (*float64) or a list as ["null","number"] /
// ["null","array"], which the official inspector and other clients do not
// convert a typed-in value to (they send "0.5" as a string). An optional
// property is one left out of required, so null adds nothing.
func plainTypes(sc *jsonschema.Schema) {
	for _, p := range sc.Properties {
		if len(p.Types) == 2 && slices.Contains(p.Types, "null") {
			p.Type = p.Types[0]
			if p.Type == "null" {
				p.Type = p.Types[1]
			}
			p.Types = nil
		}
	}
}

// cliArgs is the server's receiving middleware that reads the strings a
// command-line client sends for numbers and lists (the inspector's
// `--tool-arg max_cost=0.5`, `members=a,b` or `members=["a","b"]`) as the
// values they name, when they read cleanly: a number through
// debate/figures (finite, bounded), a list as a JSON array of strings or
// names split at commas; an optional argument sent as null is left out.
// Anything else is left as it came, and the
// schema's check refuses it in one plain sentence.
func (s *Server) cliArgs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && call.Params != nil {
			if sc := s.schemas[call.Params.Name]; sc != nil {
				call.Params.Arguments = readCLIArgs(sc, call.Params.Arguments)
			}
		}
		return next(ctx, method, req)
	}
}

// readCLIArgs rewrites, in a tool call's arguments, each string given for
// a number or a list property; it returns raw unchanged when nothing
// needs reading or raw is not an object.
func readCLIArgs(sc *jsonschema.Schema, raw json.RawMessage) json.RawMessage {
	var args map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &args) != nil || args == nil {
		return raw
	}
	changed := false
	for name, v := range args {
		p := sc.Properties[name]
		if p != nil && !slices.Contains(sc.Required, name) && string(bytes.TrimSpace(v)) == "null" {
			delete(args, name) // an optional argument sent as null is one left out
			changed = true
			continue
		}
		var str string
		if p == nil || json.Unmarshal(v, &str) != nil {
			continue
		}
		if read, ok := readCLIValue(name, p.Type, str); ok {
			args[name], changed = read, true
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return out
}

// readCLIValue reads str as a value of type typ, if it reads cleanly.
func readCLIValue(name, typ, str string) (json.RawMessage, bool) {
	switch typ {
	case "number":
		v, err := figures.ParseMoney(name, str) // every number argument is an amount in USD
		if err != nil {
			return nil, false
		}
		out, err := json.Marshal(v)
		return out, err == nil
	case "integer":
		n, err := figures.ParseCount(name, str, figures.MaxTokens)
		if err != nil {
			return nil, false
		}
		out, err := json.Marshal(n)
		return out, err == nil
	case "array":
		var list []string
		trimmed := strings.TrimSpace(str)
		if strings.HasPrefix(trimmed, "[") {
			dec := json.NewDecoder(bytes.NewReader([]byte(trimmed)))
			if dec.Decode(&list) != nil || dec.More() {
				return nil, false
			}
		} else {
			for item := range strings.SplitSeq(trimmed, ",") {
				if item = strings.TrimSpace(item); item != "" {
					list = append(list, item)
				}
			}
		}
		if len(list) == 0 {
			return nil, false
		}
		out, err := json.Marshal(list)
		return out, err == nil
	}
	return nil, false
}
