package agent

import (
	"context"
	"time"
)

// Finder is a Reader that reads one session without listing them all:
// the reader of an agent whose sessions are rows of a database
// (Capabilities.Database), which the wrapper asks before a resume by id
// in place of looking for a transcript file, and after a run for the
// context its session ended with.
type Finder interface {
	Reader
	// Find is session id as List returns it (directory, state, context in
	// use); ok is false when the database has no such session. An error
	// says it could not be read: nothing is known.
	Find(ctx context.Context, id string) (s Session, ok bool, err error)
	// Latest is the session recorded in dir that was updated last, at or
	// after since (ok false: none was).
	Latest(ctx context.Context, dir string, since time.Time) (s Session, ok bool, err error)
}

// PrefixFinder is a Finder that also expands an id prefix, so the wrapper
// resumes a session by the short id tether prints (a unique prefix of its
// id's body, identity.SessionBody) without listing every session. It is
// optional: a Finder without it resumes full ids only.
type PrefixFinder interface {
	Finder
	// IDsWithPrefix are the ids of at most limit sessions whose id, or
	// whose id's body, starts with prefix, ASCII case ignored. An error
	// says the database could not be read.
	IDsWithPrefix(ctx context.Context, prefix string, limit int) ([]string, error)
}
