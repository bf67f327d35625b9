package wrap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/termsafe"
)

// minPrefix is the shortest id prefix expanded (the catalog's MinPrefix).
const minPrefix = 4

// Named is a session tether knows by title (the completion index).
type Named struct{ ID, Title string }

// AmbiguousError is a --resume value that names more than one session:
// the agent is not started.
type AmbiguousError struct {
	Query      string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	// Candidates are file names: nobody else's input reaches a terminal raw.
	return termsafe.String(fmt.Sprintf("session %q is ambiguous; it matches %d sessions: %s (give more of the id)",
		e.Query, len(e.Candidates), strings.Join(e.Candidates, ", ")))
}

// expandResume replaces a --resume value that is a unique id prefix, or
// the title of exactly one session tether knows, with the full id: the
// short ids tether prints then work with the agent, and an archived
// session is restored before the agent looks. Live transcripts and the
// archive both count. A value that names nothing known is passed on
// untouched (the agent may know a title tether does not); one that names
// several is refused.
func (o Options) expandResume(res agent.ResumeArgs) (Options, agent.ResumeArgs, error) {
	if res.Kind != "id" || res.At < 0 || looksLikeID(res.ID) {
		return o, res, nil
	}
	ids := o.knownIDs(res.ID)
	if o.Agent.Capabilities().Database {
		var exact bool
		if ids, exact = o.storedIDs(res.ID); exact {
			return o, res, nil
		}
	}
	if len(ids) == 0 && o.Names != nil {
		for _, n := range o.Names(o.Agent.Name()) {
			if n.Title == res.ID && !slices.Contains(ids, n.ID) {
				ids = append(ids, n.ID)
			}
		}
	}
	switch len(ids) {
	case 0:
		return o, res, nil
	case 1:
	default:
		slices.Sort(ids)
		return o, res, &AmbiguousError{Query: res.ID, Candidates: ids}
	}
	o.Args = res.WithID(o.Args, ids[0])
	return o, o.Agent.ParseResume(o.Args), nil
}

// knownIDs are the full ids of the sessions whose id starts with prefix,
// in the agent's data root and in tether's archive (which mirrors its
// layout). Only a prefix that could be one (hex digits and dashes, at
// least minPrefix long) is looked up.
func (o Options) knownIDs(prefix string) []string {
	p := strings.ToLower(prefix)
	if len(p) < minPrefix || strings.Trim(p, "0123456789abcdef-") != "" {
		return nil
	}
	roots := []string{o.Agent.Home()}
	if o.Archive != nil {
		roots = append(roots, o.Archive.HarnessDir(o.Agent.Name()))
	}
	var ids []string
	for _, root := range roots {
		for _, id := range o.idsUnder(root, p) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// idsUnder lists the session ids under an agent's data root (or the
// archive's copy of it) that start with prefix.
func (o Options) idsUnder(root, prefix string) []string {
	if root == "" {
		return nil
	}
	var ids []string
	for _, g := range o.Agent.SessionGlobs(root, prefix) {
		m, _ := filepath.Glob(g)
		for _, path := range m {
			id := o.Agent.SessionIDOf(path)
			if id == "" {
				continue
			}
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() || !strings.HasPrefix(strings.ToLower(id), prefix) {
				continue
			}
			ids = append(ids, id)
		}
	}
	return ids
}

// maxCandidates bounds the ids an ambiguous prefix lists.
const maxCandidates = 10

// storedIDs are the ids of the stored sessions (an agent whose sessions
// are rows of a database) that prefix names, and whether it is one of
// them exactly. A reader that cannot expand prefixes, or a database that
// cannot be read, knows none: the resume goes on as asked.
func (o Options) storedIDs(prefix string) (ids []string, exact bool) {
	pf, ok := o.Finder.(agent.PrefixFinder)
	if !ok || len(prefix) < minPrefix || strings.Trim(prefix, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") != "" {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	ids, err := pf.IDsWithPrefix(ctx, prefix, maxCandidates)
	if err != nil {
		return nil, false
	}
	return ids, slices.Contains(ids, prefix)
}
