package identity

import "strings"

// minBodyLen keeps short, ambiguous suffixes ("x_1") from matching across
// prefixes: only a body long enough to be an id on its own counts.
const minBodyLen = 8

// SessionBody returns the part of a session id after its last "_", the part
// that stays the same when a harness renames the prefix (session_abc… and
// cse_abc… are one session).
func SessionBody(id string) string {
	if i := strings.LastIndexByte(id, '_'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// SameSession reports whether a and b name the same session: equal bodies of
// at least eight characters, else an exact match.
func SameSession(a, b string) bool {
	if a == b {
		return a != ""
	}
	ba, bb := SessionBody(a), SessionBody(b)
	return len(ba) >= minBodyLen && ba == bb
}

// ShortID is the first eight characters of an id's body, enough to tell
// sessions apart in messages and tables.
func ShortID(id string) string {
	if b := SessionBody(id); len(b) > 8 {
		return b[:8]
	}
	return SessionBody(id)
}
