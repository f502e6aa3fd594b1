package debate

import "errors"

// refusedError is a line the engine refused before keeping anything of it
// or sending any call (an unknown or keyless @name, a line that asks no
// question, a cap that cannot bound the call, a spend window with no room,
// a session another process holds): the session is as it was, so the door
// that took the line gives it back to be corrected or sent again (the
// console keeps it in its input). It words nothing itself: Error is the
// refusal's own sentence, and errors.Is and errors.As reach the refusal.
type refusedError struct{ Err error }

func (e *refusedError) Error() string { return e.Err.Error() }

// Unwrap returns the refusal.
func (e *refusedError) Unwrap() error { return e.Err }

// IsRefused reports whether err refused its line with nothing kept.
func IsRefused(err error) bool {
	var r *refusedError
	return errors.As(err, &r)
}

// refused wraps err, a line's refusal with nothing kept (nil stays nil).
func refused(err error) error {
	if err == nil || IsRefused(err) {
		return err
	}
	return &refusedError{Err: err}
}
