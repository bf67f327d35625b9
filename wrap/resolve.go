package wrap

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/internal/eventlog"
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
func (o Options) expandResume(res Resume) (Options, Resume, error) {
	if res.Kind != "id" || res.at < 0 || looksLikeID(res.ID) {
		return o, res, nil
	}
	ids := o.knownIDs(res.ID)
	if len(ids) == 0 && o.Names != nil {
		for _, n := range o.Names(o.Harness) {
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
	args := slices.Clone(o.Args)
	if res.eq {
		args[res.at] = "--resume=" + ids[0]
	} else {
		args[res.at] = ids[0]
	}
	o.Args = args
	return o, ParseResume(o.Harness, args), nil
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
	roots := []string{o.ClaudeDir}
	harness := eventlog.ClaudeCode
	if o.Harness == Codex {
		roots, harness = []string{o.CodexDir}, eventlog.Codex
	}
	if o.Archive != nil {
		roots = append(roots, o.Archive.HarnessDir(harness))
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
	var globs []string
	if o.Harness == Codex {
		// A rollout's name has its start time before the id, dashes
		// and all: the glob is wide, IsRolloutFile and ThreadID decide.
		name := "*" + prefix + "*.jsonl"
		globs = []string{filepath.Join(codex.SessionsDir(root), "*", "*", "*", name), filepath.Join(codex.ArchivedDir(root), name)}
	} else {
		globs = []string{filepath.Join(claude.ProjectsDir(root), "*", prefix+"*.jsonl")}
	}
	var ids []string
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		for _, path := range m {
			id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			if o.Harness == Codex {
				if !codex.IsRolloutFile(filepath.Base(path)) {
					continue
				}
				id = codex.ThreadID(path)
			}
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() || !strings.HasPrefix(strings.ToLower(id), prefix) {
				continue
			}
			ids = append(ids, id)
		}
	}
	return ids
}
