package catalog

import "github.com/tether-dev/tether/identity"

// Abbrev is the abbreviator over every session listed: each id's shortest
// unique prefix (at least eight characters) among them. Show it in place
// of ShortID wherever the whole catalog was listed anyway.
func Abbrev(ss []Session) *identity.Abbreviator {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return identity.NewAbbreviator(ids)
}
