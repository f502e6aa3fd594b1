// Package web is Parley's live web view: server-rendered pages (sessions,
// one session, compare) and a small script that follows a session through
// the HTTP API's event stream. It reads sessions through Backend only and
// speaks to the running engine only through /api/v1 from the browser, so it
// has no mode logic of its own.
package web

import (
	"context"
	"errors"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
)

// Backend is what the pages need from the server: the saved sessions and
// one session's transcript and panels. The server (package serve)
// implements it over its store and live engines.
type Backend interface {
	// ListSessions returns the sessions to list, the most recently active first.
	ListSessions(ctx context.Context) ([]debate.SessionSummary, error)
	// LoadSession returns one session by id. An unknown id is an error for
	// which errors.Is(err, ErrNotFound) holds (the page answers 404). For a
	// session that runs, it must include every entry an event has already
	// announced (read the live engine's history, not only the store, which
	// lags): the page fetches a turn's rendered HTML when turn_finished
	// arrives. A streaming entry holds the text its events had brought up
	// to LastEventID, so the page shows it and the stream goes on after it.
	LoadSession(ctx context.Context, id string) (SessionView, error)
}

// ErrNotFound is what a Backend wraps for an unknown session id.
var ErrNotFound = errors.New("session not found")

// SessionView is one session as the session page shows it.
type SessionView struct {
	Info    debate.SessionInfo
	Entries []transcript.Entry // the whole history, in turn order
	// Panels are the current mode's agents in panel order (the console's
	// panels): for mention mode the agents @all asks.
	Panels []Panel
	// Busy is true while an exchange runs (the input box says so).
	Busy bool
	// LastEventID is the SSE id of the newest event Entries already reflect:
	// the page's stream starts after it (GET …/events?after=LastEventID), so
	// nothing between the page's render and its stream's start is missed.
	// "" starts the stream at the newest event.
	LastEventID string
	// Spend is the session's spend and cost cap as they stand.
	Spend debate.SpendUpdated
	// Checkpoint is the point the session's run waits at for its host
	// (nil: none): the page shows its choices.
	Checkpoint *debate.CheckpointReached
}

// Panel is one agent's column on the session page.
type Panel struct {
	Name     string // configured name: matches Entry.Speaker and events' "agent"
	Display  string // name as shown, e.g. "Gemini"
	Model    string
	Provider string
	Role     string // the mode's role for this panel (debate.ModeInfo.Roles), may be ""
	Color    string // the agent's configured colour, "#RRGGBB"; others are ignored
}

// Options tune the pages.
type Options struct {
	// APIBase is where the browser finds the API; "" means "/api/v1".
	APIBase string
	// UserID, when set, is sent as user_id when the sessions page creates a
	// session and as ?user_id= on the page's API calls and event stream.
	UserID string
	// SignOut puts a sign-out button in the page's header: the server
	// asks for a token, so the browser holds a login session to end.
	SignOut bool
	// Modes is the program's modes: what each session's page shows (its
	// input, controls, board) comes from its mode's descriptor.
	Modes config.ModeList
}
