package providers

import (
	"errors"

	"github.com/parleyhq/parley/debate/sanitize"
)

// ScrubError returns err with every message in it passed through s's one
// pass (sanitize.Scrubber.Clean: normalised, then scrubbed of keys). A
// *Error keeps its kind, status and retry hint (the retry policy and the
// console need them); the chain below it keeps context.Canceled and
// DeadlineExceeded findable but says nothing the scrubber would remove.
func ScrubError(s *sanitize.Scrubber, err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := AsError(err); ok {
		out := *pe
		out.Message = s.Clean(pe.Message)
		if pe.Err != nil {
			out.Err = &scrubbedError{msg: s.Clean(pe.Err.Error()), inner: pe.Err}
		}
		if err == error(pe) {
			return &out
		}
		return &scrubbedError{msg: s.Clean(err.Error()), inner: &out}
	}
	return &scrubbedError{msg: s.Clean(err.Error()), inner: err}
}

// scrubbedError is an error whose text was scrubbed; Unwrap keeps
// errors.Is working for the sentinel errors (context.Canceled, …).
type scrubbedError struct {
	msg   string
	inner error
}

func (e *scrubbedError) Error() string { return e.msg }

func (e *scrubbedError) Is(target error) bool { return errors.Is(e.inner, target) }

// Unwrap gives the *Error a scrubbed *Error wraps, and nothing else: the
// raw error below would print the secret again.
func (e *scrubbedError) Unwrap() error {
	if pe, ok := e.inner.(*Error); ok {
		return pe
	}
	return nil
}
