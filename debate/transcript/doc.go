// Package transcript is what is said at the table: an Entry (a question, a
// reply, a vote, a tool call, a note, an outcome) with its Kind and Status,
// and a session's one ordered History of them, which the engine appends
// to, prompts are built from, the store saves and every door prints.
//
// It knows nothing of the engine that fills it: debate builds on it, and
// so do the store and the doors, which read entries without an engine.
package transcript
