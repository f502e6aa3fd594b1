// Package debate is Parley's engine: sessions, one shared history per
// session, turns and their prompts, and a stream of typed events that the
// console, the headless commands, the store and every other door consume
// (Engine.Subscribe): events are the only way out, and the engine knows
// nothing of terminals, HTTP, MCP or SQL.
//
// The modes that decide who speaks live in debate/modes, each its own
// package; the engine knows a mode only by its descriptor (ModeSpec) and
// hands it a Session, what a mode may do. The configuration and its checks
// are here too (config*.go), because each mode checks its own section. The
// spend meter is debate/spend; the vocabulary of a decision (votes, answers,
// rankings, MAGI and council results, their sentences) is debate/verdict.
package debate
