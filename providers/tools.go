package providers

// Native tool calling, in one provider-neutral shape. Each adapter maps it
// to its vendor's wire format (OpenAI Chat tools and tool_calls deltas, the
// Responses API's function_call items, Anthropic tool_use / tool_result
// blocks, Gemini functionCall / functionResponse parts); the engine only
// ever sees these types.
//
// A turn with tools is a loop the engine drives: a request carries Tools,
// the stream ends with Result.ToolCalls, the engine runs them and sends the
// next request with the assistant's message (Message.ToolCalls and its
// Replay) followed by one RoleTool message holding the ToolResults.

// RoleTool is a message carrying the results of the calls of the assistant
// message before it (OpenAI's "tool" messages, Anthropic's tool_result
// blocks in a user turn, Gemini's functionResponse parts).
const RoleTool Role = "tool"

// ToolSpec is a function the model may call.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object for the arguments.
	Parameters map[string]any
}

// Server tool kinds (ServerTool.Kind): tools the vendor runs itself.
const ServerToolWebSearch = "web_search"

// ServerTool is a tool the vendor runs on its side (OpenAI Responses'
// web_search, Anthropic's web_search_20250305, Gemini's google_search
// grounding). Its results come back as Result.Sources.
type ServerTool struct {
	Kind    string // ServerToolWebSearch
	MaxUses int    // 0: the vendor's default (Anthropic max_uses)
}

// ToolCall is the model asking to run one function.
type ToolCall struct {
	ID   string // the vendor's call id ("" when the vendor gives none: the adapter makes one)
	Name string
	// Arguments is the JSON object text as the model wrote it; it may be
	// malformed, and the engine answers that as the tool's error.
	Arguments string
	// Signature is vendor data the adapter needs back with this call
	// (Gemini's thought signature); the engine returns it untouched.
	Signature string
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
}

// Source is a page a server-side search used, normalised across vendors.
type Source struct {
	URL       string
	Title     string
	CitedText string // the span the answer cites, when the vendor gives it
}
