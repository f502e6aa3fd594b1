// Package lease is what a session's lease refuses, worded once for every
// door: a session another process is answering in (BusyError), one taken
// over from this process while it was paused (TakenOverError), one deleted
// while it was open (DeletedError). The store's journal makes them; the
// engine stops writing on IsLost, and the doors tell the user IsBusy's
// words as they are (docs/journal.md).
package lease

import (
	"errors"
	"fmt"
	"time"
)

// TakenOverError: another process took the session's lease from this one
// (this one was paused, or its disk stalled, past the lease's expiry). The
// taker settled this process's streaming answer as partial; nothing this
// process wrote after that was kept.
type TakenOverError struct {
	Session string
	Door    string // who holds it now: "ask", "console", …; "" when the lease was cleared (sessions unlock)
	PID     int
	Host    string
}

func (e *TakenOverError) Error() string {
	by := "parley sessions unlock"
	if e.Door != "" {
		by = fmt.Sprintf("%s (pid %d on %s)", e.Door, e.PID, e.Host)
	}
	return fmt.Sprintf("session %s was taken over by %s while this process was paused; its last answer was kept as partial",
		e.Session, by)
}

// DeletedError: the session was deleted (parley sessions rm, the API)
// while this process had it open. Nothing is written into it again: a
// deleted session is never re-created behind the user's back.
type DeletedError struct {
	Session string
}

func (e *DeletedError) Error() string {
	return fmt.Sprintf("session %s was deleted by another process; nothing more was saved in it", e.Session)
}

// IsLost reports whether err says this process may no longer write its
// session: taken over or deleted.
func IsLost(err error) bool {
	var t *TakenOverError
	var d *DeletedError
	return errors.As(err, &t) || errors.As(err, &d)
}

// BusyError refuses an exchange on a session another process is writing.
// Every door shows its words as they are: who holds the session, since
// when, and what to do.
type BusyError struct {
	Session   string
	Door      string // what holds it: "ask", "console", "serve", "mcp", …
	PID       int
	Host      string
	Since     time.Time
	Heartbeat time.Time
	Expires   time.Time
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("session %s is busy: %s (pid %d on %s) has been answering in it since %s UTC; "+
		"wait for it to finish, run again with --wait to queue behind it, or fork the session (parley sessions fork %s) to go on apart",
		e.Session, e.Door, e.PID, e.Host, e.Since.UTC().Format("15:04:05"), e.Session)
}

// IsBusy reports whether err is a refused exchange on a shared session.
func IsBusy(err error) bool {
	var b *BusyError
	return errors.As(err, &b)
}
