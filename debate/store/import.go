package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sessionid"
	"github.com/parleyhq/parley/debate/transcript"
)

// MaxImportBytes bounds what ReadJSON reads (a 50,000-turn session of long
// answers is well under it).
const MaxImportBytes = 1 << 30

// ImportError says why an export file is refused.
type ImportError struct{ Problem string }

func (e *ImportError) Error() string { return "import: " + e.Problem }

func refuse(format string, args ...any) error {
	return &ImportError{Problem: fmt.Sprintf(format, args...)}
}

var knownKinds = map[transcript.Kind]bool{
	transcript.KindUser: true, transcript.KindNote: true, transcript.KindReply: true, transcript.KindModerator: true,
	transcript.KindVote: true, transcript.KindVerdict: true, transcript.KindToolCall: true, transcript.KindToolResult: true,
	transcript.KindError: true, transcript.KindSummary: true, transcript.KindOutcome: true,
}

// ReadJSON parses a JSON export (WriteJSON's output) back into the session
// it came from. It is strict: unknown fields, a newer format version, turns
// out of order, unknown kinds or statuses, or trailing data (json.Unmarshal
// of the head checks the whole document) are refused,
// since a half-understood file must not become a session.
func ReadJSON(r io.Reader) (debate.SessionInfo, []transcript.Entry, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxImportBytes+1))
	if err != nil {
		return debate.SessionInfo{}, nil, err
	}
	if len(data) > MaxImportBytes {
		return debate.SessionInfo{}, nil, refuse("the file is larger than %d bytes", MaxImportBytes)
	}
	// The version is read first, so a newer file is refused for what it is
	// rather than for the fields this Parley does not know.
	var head struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return debate.SessionInfo{}, nil, refuse("not a Parley JSON export: %v", err)
	}
	if head.FormatVersion != nil && *head.FormatVersion > ExportVersion {
		return debate.SessionInfo{}, nil, refuse("the file has format version %d, newer than this parley reads (%d): upgrade parley", *head.FormatVersion, ExportVersion)
	}
	if head.FormatVersion != nil && *head.FormatVersion < 0 {
		return debate.SessionInfo{}, nil, refuse("format version %d is not valid", *head.FormatVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in ExportedSession
	if err := dec.Decode(&in); err != nil {
		return debate.SessionInfo{}, nil, refuse("not a Parley JSON export: %v", err)
	}
	if head.FormatVersion == nil && len(in.Messages) > 0 && in.Messages[0].Turn == 0 {
		return debate.SessionInfo{}, nil, refuse("this is an agent conversation or a seed export, not a Parley session export: export the session with --format session")
	}
	if err := checkID(in.ConversationID); err != nil {
		return debate.SessionInfo{}, nil, err
	}
	info := debate.SessionInfo{
		ID: in.ConversationID, Title: in.Title, Mode: in.Mode, Topic: in.Topic, Created: in.Created.UTC(),
		Parent: in.Parent, ForkAt: in.ForkAt, State: in.State,
	}
	if info.Title != "" { // an export of an untitled session has none
		title, err := debate.CheckTitle(info.Title)
		if err != nil {
			return info, nil, refuse("title: %v", err)
		}
		info.Title = title
	}
	if !writableTime(info.Created) {
		return info, nil, refuse("created %s is out of range", in.Created)
	}
	if info.Mode != "" && !isMode(info.Mode) {
		return info, nil, refuse("mode %q is not a mode's name", info.Mode)
	}
	if info.ForkAt < 0 {
		return info, nil, refuse("fork_at %d is negative", info.ForkAt)
	}
	entries := make([]transcript.Entry, 0, len(in.Messages))
	for i, m := range in.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		if m.Turn != i+1 {
			return info, nil, refuse("%s: turn %d, want %d (turns are numbered from 1 without gaps)", at, m.Turn, i+1)
		}
		if !knownKinds[m.Kind] {
			return info, nil, refuse("%s: unknown kind %q", at, m.Kind)
		}
		switch m.Status {
		case transcript.StatusComplete, transcript.StatusPartial, transcript.StatusCancelled, transcript.StatusError:
		default: // streaming included: an export holds finished turns only
			return info, nil, refuse("%s: status %q is not a finished turn's", at, m.Status)
		}
		if m.LatencyMS < 0 || m.Usage.InputTokens < 0 || m.Usage.OutputTokens < 0 || m.Usage.CachedTokens < 0 || (m.Cost != nil && *m.Cost < 0) || m.Round < 0 {
			return info, nil, refuse("%s: negative latency, usage, cost or round", at)
		}
		if m.Covers < 0 || m.Covers >= m.Turn || (m.Covers > 0) != (m.Kind == transcript.KindSummary) {
			return info, nil, refuse("%s: covers %d does not fit a %s at turn %d", at, m.Covers, m.Kind, m.Turn)
		}
		if m.LatencyMS > int64(100*365*24*time.Hour/time.Millisecond) {
			return info, nil, refuse("%s: latency_ms %d is out of range", at, m.LatencyMS)
		}
		calls := m.ToolCalls
		if len(calls) == 0 {
			calls = nil // the export writes [] for none
		}
		en := transcript.Entry{
			Turn: m.Turn, Kind: m.Kind, Speaker: m.Speaker, Display: m.Display, Provider: m.Provider, Model: m.Model,
			Mode: m.Mode, Round: m.Round, Prompt: m.Prompt, Text: m.Content, Vote: m.Vote, IsModerator: m.IsModerator,
			Status: m.Status, Error: m.Error, Usage: m.Usage, Cost: costOf(m), ToolCalls: calls, Covers: m.Covers,
			Started: m.Timestamp.UTC(),
		}
		if !en.Started.IsZero() {
			en.Finished = en.Started.Add(time.Duration(m.LatencyMS) * time.Millisecond)
		}
		if !writableTime(en.Started) || !writableTime(en.Finished) {
			return info, nil, refuse("%s: timestamp %s is out of range", at, m.Timestamp)
		}
		entries = append(entries, en)
	}
	if info.ForkAt > 0 && info.Parent == "" {
		return info, nil, refuse("fork_at %d without a parent", info.ForkAt)
	}
	return info, entries, nil
}

// writableTime reports whether t, in UTC, has a year RFC 3339 can write.
func writableTime(t time.Time) bool {
	return t.IsZero() || (t.Year() >= 1 && t.Year() <= 9999)
}

// isMode reports whether name could be a mode's: lower-case letters,
// digits, - and _, at most 32 bytes. Whether this program knows the mode
// is its caller's question (the modes are the program's list).
func isMode(name string) bool {
	if name == "" || len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

// checkID accepts the session IDs sessionid.Check does (the ones
// Parley writes and the safe set around them): an imported ID may later
// name a file (agent-<id>.json, parley-<id>.md), so nothing else gets in.
func checkID(id string) error {
	if id == "" {
		return refuse("conversation_id is missing")
	}
	if err := sessionid.Check(id); err != nil {
		return refuse("conversation_id is not a session ID: %v", err)
	}
	return nil
}

// ErrExists is returned when an imported session's ID is already in use.
var ErrExists = errors.New("a session with this ID already exists")

// Import writes a session read by ReadJSON in one transaction: all of it
// or, on any error, nothing. With newID the session gets a fresh ID (to
// keep a copy beside the original); otherwise an ID already in use is
// refused.
func (s *Store) Import(ctx context.Context, info debate.SessionInfo, entries []transcript.Entry, newID bool) (debate.SessionInfo, error) {
	if newID {
		info.ID = debate.NewSessionID()
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return info, err
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM conversation_meta WHERE conversation_id = ?`, info.ID).Scan(&n); err != nil {
		return info, err
	}
	if n > 0 {
		return info, fmt.Errorf("%w: %s (delete it first, or import with --new-id)", ErrExists, info.ID)
	}
	now := formatTime(time.Now())
	if err := upsertMeta(ctx, tx, info, now); err != nil {
		return info, err
	}
	spoke := map[string]bool{}
	for _, en := range entries {
		if _, err := insertEntry(ctx, tx, info.ID, "", en); err != nil {
			return info, err
		}
		if en.IsAgentTurn() && !spoke[en.Speaker] { // only a first turn can fill a participant column
			spoke[en.Speaker] = true
			if err := noteParticipant(ctx, tx, info.ID, en); err != nil {
				return info, err
			}
		}
	}
	return info, tx.Commit()
}

// costOf is an imported message's cost: 0 when null (its model had no
// price, which its usage's price_unknown keeps).
func costOf(m ExportedMessage) float64 {
	if m.Cost == nil {
		return 0
	}
	return *m.Cost
}
