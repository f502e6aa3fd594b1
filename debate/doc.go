// Package debate is Parley's engine: sessions, their seats and turns, the
// prompts a turn sends, the charge of each call, and a stream of typed
// events that the console, the headless commands, the store and every
// other door consume (Engine.Subscribe): events are the only way out, and
// the engine knows nothing of terminals, HTTP, MCP or SQL.
//
// The modes that decide who speaks live in debate/modes, each its own
// package; the engine knows a mode only by its descriptor (ModeSpec) and
// hands it a Session, what a mode may do. The rest is in rooms beside it,
// none of which imports the engine: what is said (debate/transcript), the
// configuration and its checks (debate/config), the spend meter
// (debate/spend), the vocabulary and events of a decision (debate/verdict)
// and of the modes that take turns (debate/dialogue), the streaming
// decoder of a structured answer (debate/fieldstream), a lease's refusals
// (debate/lease), checkpoints, tools, evidence, and the store.
package debate
