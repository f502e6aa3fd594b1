package serve

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/parleyhq/parley"
	"github.com/parleyhq/parley/debate/checkpoint"
)

// The OpenAPI 3.1 document is built from the route table the mux is built
// from, with the schemas below; a test checks both against each other and
// against the handlers' real answers.

type obj = map[string]any

func str() obj              { return obj{"type": "string"} }
func integer() obj          { return obj{"type": "integer"} }
func boolean() obj          { return obj{"type": "boolean"} }
func ref(name string) obj   { return obj{"$ref": "#/components/schemas/" + name} }
func array(items obj) obj   { return obj{"type": "array", "items": items} }
func nullable(t string) obj { return obj{"type": []string{t, "null"}} }
func anyObject() obj        { return obj{"type": "object"} }
func object(props obj, required ...string) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// schemas are the API's JSON schemas, built on first use (a map of ~50
// schemas, not in every command's start-up).
var schemas = sync.OnceValue(func() obj {
	return obj{
		"Error":     object(obj{"error": object(obj{"code": str(), "message": str(), "type": str()}, "code", "message")}, "error"),
		"SeedStart": object(obj{"user_id": str(), "instruction": str()}, "user_id", "instruction"),
		"SeedStep":  object(obj{"user_id": str(), "instruction": str()}, "user_id"),
		"SeedTurn": object(obj{
			"status": obj{"type": "string", "enum": []string{"ok", "error"}},
			"error":  str(),
			"turn": obj{"type": "object", "description": "user_instruction, <first agent>_output, <second agent>_output (null for the agent that did not answer), responder, next_responder",
				"properties":           obj{"user_instruction": str(), "responder": str(), "next_responder": str()},
				"additionalProperties": nullable("string"),
				"required":             []string{"user_instruction", "responder", "next_responder"}},
		}, "status", "turn"),
		"MagiRequest": object(obj{"question": str(), "preset": obj{"type": "string", "enum": []string{"default", "rotate", "rotate2"}},
			"model": str(), "single_round": boolean(), "user_id": str()}, "question"),
		"MagiResult": object(obj{"session_id": str(), "question": str(), "verdict": str(), "sentence": str(),
			"rounds": array(array(object(obj{"agent": str(), "provider": str(), "model": str(), "round": integer(), "vote": str(),
				"reasoning": str(), "summary": str(), "valid": boolean(), "error": str(), "usage": ref("MagiUsage")}))),
			"flips": array(anyObject()), "usage": ref("MagiUsage"),
			"answer_type": str(), "answer": str(), "early_stopped": boolean(), "stop_reason": str(), "calls_saved": integer(),
			"rule": str(), "discounted": array(str())}, "question", "verdict", "rounds", "flips", "usage"),
		"MagiUsage": object(obj{"prompt_tokens": integer(), "completion_tokens": integer(), "cached_tokens": integer(), "cost_usd": obj{"type": "number"}}),
		"SessionCreate": object(obj{"mode": str(), "title": str(), "user_id": str(), "agents": array(str()),
			"max_cost": obj{"type": "number", "minimum": 0, "description": "cap on the session's spend in USD; absent: the server's ceiling (serve --max-cost), never above it"}}),
		"Spend": object(obj{"spent_usd": obj{"type": "number"}, "cap_usd": obj{"type": "number"}, "unknown": boolean(),
			"exchange_usd": obj{"type": "number"}, "exchange_cap_usd": obj{"type": "number"}}, "spent_usd", "exchange_usd"),
		"Session": object(obj{"id": str(), "title": str(), "mode": str(), "topic": str(), "created": obj{"type": "string", "format": "date-time"},
			"parent": str(), "fork_at": integer(), "state": obj{"type": "object", "additionalProperties": str()}}, "id", "mode"),
		"SessionCreated": object(obj{"session": ref("Session")}, "session"),
		"SessionList": object(obj{"sessions": array(object(obj{"id": str(), "title": str(), "mode": str(), "agents": array(str()),
			"turns": integer(), "created": str(), "last_activity": str(), "user_id": str()})), "next_cursor": str()}, "sessions", "next_cursor"),
		"Entry": obj{"type": "object", "description": "a history entry (see README: the event stream)", "properties": obj{"turn": integer(), "kind": str(),
			"speaker": str(), "display": str(), "text": str(), "status": str()}},
		"SessionDetail": object(obj{"session": ref("Session"), "entries": array(ref("Entry")),
			"panels": array(object(obj{"name": str(), "display": str(), "model": str(), "provider": str(), "role": str(), "color": str()})),
			"busy":   boolean(), "next_cursor": str(), "controls": array(str()), "last_event_id": integer(), "spend": ref("Spend"),
			"status":     obj{"type": "string", "enum": []string{"idle", "running", "awaiting_host"}},
			"checkpoint": obj{"type": "object", "description": "the checkpoint the run waits at (as the checkpoint event): kind, round, of, summary, split, members, choices, tool, sentence"}},
			"session", "entries", "panels", "busy", "next_cursor"),
		"Message":  object(obj{"text": str()}, "text"),
		"Fork":     object(obj{"at": obj{"type": "integer", "minimum": 0, "description": "last turn to copy; 0 or absent: the whole session"}}),
		"Accepted": object(obj{"status": obj{"const": "accepted"}}, "status"),
		"OK":       object(obj{"status": obj{"const": "ok"}}, "status"),
		"Deleted":  object(obj{"deleted": str()}, "deleted"),
		"CheckpointAnswer": object(obj{"action": obj{"type": "string", "enum": checkpointActions()},
			"text": str(), "member": str(), "with": obj{"type": "string", "description": "swap: the agent taking member's seat"}}, "action"),
		"Control":      object(obj{"kind": obj{"type": "string", "enum": []string{"pause", "continue", "stop", "rounds", "steps"}}, "n": integer()}, "kind"),
		"ModeChange":   object(obj{"mode": str()}, "mode"),
		"Event":        obj{"type": "string", "description": "text/event-stream: `id: <seq>`, `event: <type>`, `data: <event JSON, type first>`; event `reset` when the client is behind the replay buffer; `: ping` comments"},
		"CustomAgent":  object(obj{"name": str(), "display": str(), "persona": str(), "provider": str(), "model": str(), "color": str()}, "name", "provider"),
		"AgentCreated": object(obj{"agent": ref("CustomAgent")}, "agent"),
		"AgentList": object(obj{"agents": array(ref("CustomAgent")),
			"configured": array(object(obj{"name": str(), "display": str(), "provider": str(), "model": str(), "color": str()}))}, "agents", "configured"),
		"ModeList": object(obj{"modes": array(object(obj{"name": str(), "key": str(), "title": str(), "input": str(),
			"roles": array(str()), "controls": array(str())}))}, "modes"),
		"OpenAPI": anyObject(),
	}
})

// document is the OpenAPI 3.1 description of the API.
func (s *Server) document() obj {
	paths := obj{}
	for _, rt := range s.routes {
		item, _ := paths[rt.path].(obj)
		if item == nil {
			item = obj{}
			paths[rt.path] = item
		}
		op := obj{"summary": rt.summary, "operationId": operationID(rt)}
		var params []obj
		for _, part := range strings.Split(rt.path, "/") {
			if strings.HasPrefix(part, "{") {
				params = append(params, obj{"name": strings.Trim(part, "{}"), "in": "path", "required": true, "schema": str()})
			}
		}
		for _, q := range rt.query {
			params = append(params, obj{"name": q, "in": "query", "schema": str()})
		}
		if rt.sse {
			params = append(params, obj{"name": "Last-Event-ID", "in": "header", "schema": str()})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if rt.request != "" {
			op["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": ref(rt.request)}}}
		}
		media := "application/json"
		if rt.sse {
			media = "text/event-stream"
		}
		responses := obj{strconv.Itoa(rt.status): obj{"description": http.StatusText(rt.status), "content": obj{media: obj{"schema": ref(rt.response)}}}}
		for _, code := range rt.errors {
			responses[strconv.Itoa(code)] = obj{"description": http.StatusText(code), "content": obj{"application/json": obj{"schema": ref("Error")}}}
		}
		op["responses"] = responses
		item[strings.ToLower(rt.method)] = op
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "Parley HTTP API", "version": parley.Version,
			"description": "The debate over HTTP: sessions, seed 001's start/step, the MAGI council, Server-Sent Events, custom agents. Errors are {\"error\":{\"code\",\"message\"}}."},
		"paths":      paths,
		"components": obj{"schemas": schemas(), "securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer"}}},
		"security":   []obj{{"bearer": []string{}}, {}},
	}
}

func operationID(rt route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.method))
	for _, part := range strings.Split(strings.TrimPrefix(rt.path, "/api/v1/"), "/") {
		part = strings.Trim(part, "{}.")
		part = strings.ReplaceAll(part, ".", "")
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func (s *Server) openapi(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, s.document())
	return nil
}

// checkpointActions are the host's actions as the core lists them.
func checkpointActions() []string {
	out := make([]string, len(checkpoint.Actions))
	for i, a := range checkpoint.Actions {
		out[i] = string(a)
	}
	return out
}
