// Package fieldstream decodes a structured answer (a MAGI vote, a council
// ranking: a JSON object) while it streams, so a door can show its prose
// fields as they arrive and every other field once it is complete, and
// falls back to the answer's own text (Raw) when it is not an object.
// The engine feeds it each turn's deltas (TextDelta.Field, FieldCompleted);
// the console reads a saved answer with it.
package fieldstream
