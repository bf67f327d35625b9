// Package exitcode defines tether's process exit statuses. They are part of
// the command-line contract (documented in the README) and never change
// meaning.
package exitcode

import "errors"

const (
	OK       = 0 // success
	Error    = 1 // the command failed; the message says why
	Usage    = 2 // bad flags or arguments
	NotFound = 3 // a named session, file or binary does not exist
	Refused  = 4 // tether declined to act (e.g. the session is running) and changed nothing
)

// codedError attaches an exit status to an error.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// With returns err carrying the given exit status. A nil err stays nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err}
}

// Silent is an error whose exit status matters but whose message has been
// shown already (or there is none to show), such as a wrapped child's exit.
type Silent struct{ Code int }

func (s Silent) Error() string { return "" }

// Of returns the exit status for err: 0 for nil, the attached status when
// there is one, else Error.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var s Silent
	if errors.As(err, &s) {
		return s.Code
	}
	var c *codedError
	if errors.As(err, &c) {
		return c.code
	}
	return Error
}
