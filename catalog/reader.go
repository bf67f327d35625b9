package catalog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/identity"
)

// Catalog merges the readers of every harness.
type Catalog struct {
	Readers []Reader
	// Archive, when set, adds the sessions only tether's archive holds
	// (state archived) and archives what a listing finds.
	Archive *Archive
}

// List returns the sessions of every reader, newest activity first.
func (c *Catalog) List(ctx context.Context, opts ListOptions) ([]Session, []Diagnostic, error) {
	var (
		diags []Diagnostic
		errs  []error
		mu    sync.Mutex
		wg    sync.WaitGroup
	)
	c.shareRoots()
	stats := c.shareStats()
	var arch *archivePass
	if c.Archive != nil {
		arch = c.Archive.begin(ctx)
		arch.stats = stats
	}
	found := make([][]Session, len(c.Readers))
	for i, r := range c.Readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, d, err := r.List(ctx, opts)
			found[i] = s
			mu.Lock()
			defer mu.Unlock()
			diags = append(diags, d...)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", r.Harness(), err))
			}
		}()
	}
	wg.Wait()
	all := joinSessions(found)
	if arch != nil {
		if ctx.Err() == nil {
			archived, d := arch.finish(ctx, all)
			all = mergeArchived(all, archived)
			diags = append(diags, d...)
		} else {
			<-arch.done // nothing of it is used, but it is not left running
		}
	}
	SortNewest(all)
	sort.Slice(diags, func(i, j int) bool { return diags[i].Path < diags[j].Path })
	return all, diags, errors.Join(errs...)
}

// joinSessions concatenates the readers' sessions into one slice, with
// room for the archive's. Session is large (480 bytes) and holds
// pointers: copying 10,000 of them, with the collector's write barriers
// on, cost a warm listing up to ~25 ms. So the largest reader's slice is
// kept when it has the room (the Claude Code reader leaves some, see
// joinRoom) and only the others are copied into it.
func joinSessions(found [][]Session) []Session {
	n, big := 0, 0
	for i, s := range found {
		n += len(s)
		if len(s) > len(found[big]) {
			big = i
		}
	}
	if len(found) == 0 {
		return nil
	}
	all := found[big]
	if cap(all) < n+n/64 {
		all = make([]Session, 0, n+n/32+8)
		all = append(all, found[big]...)
	}
	for i, s := range found {
		if i != big {
			all = append(all, s...)
		}
	}
	return all
}

// sharer is a reader that takes a listing's shared state: the root memo
// and the directory stats (the agents' readers do).
type sharer interface {
	ShareRoots(m *evidence.RootMemo)
	ShareStats(st *scan.DirStats)
}

// describer is a reader that describes one transcript file (an archived
// copy) as a session, or says why it cannot.
type describer interface {
	Describe(path string) (Session, string)
}

// shareStats gives the harness readers one scan.DirStats for this listing.
func (c *Catalog) shareStats() *scan.DirStats {
	st := &scan.DirStats{}
	for _, r := range c.Readers {
		if r, ok := r.(sharer); ok {
			r.ShareStats(st)
		}
	}
	return st
}

// shareRoots gives the readers (the archive's too) one rootMemo for this
// listing: the agents often worked in the same directories.
func (c *Catalog) shareRoots() {
	m := &evidence.RootMemo{}
	readers := slices.Clone(c.Readers)
	if c.Archive != nil {
		for _, src := range c.Archive.Sources {
			readers = append(readers, src.Reader)
		}
	}
	for _, r := range readers {
		if r, ok := r.(sharer); ok {
			r.ShareRoots(m)
		}
	}
}

// Get fully reads s with its harness's reader.
func (c *Catalog) Get(ctx context.Context, s Session) (Session, error) {
	if s.State == StateArchived && c.Archive != nil {
		return c.Archive.getArchived(ctx, s)
	}
	for _, r := range c.Readers {
		if r.Harness() == s.Harness {
			return r.Get(ctx, s)
		}
	}
	return s, fmt.Errorf("no reader for harness %q", s.Harness)
}

// SortNewest orders sessions by last activity, newest first, with the key
// as a tie breaker so output is stable.
func SortNewest(ss []Session) {
	// Session is a large struct: sort a compact (time, index) slice, then
	// move each session once, in place, along the permutation's cycles
	// (a sorted copy moved every session twice through write barriers and
	// allocated as much again: 25 ms of a warm list at 10,000 sessions).
	// The time as seconds and nanoseconds: Time.Compare's order without
	// its work per comparison.
	type ent struct {
		sec  int64
		nsec int32
		i    int32
	}
	es := make([]ent, len(ss))
	for i := range ss {
		t := ss[i].LastActivity
		es[i] = ent{t.Unix(), int32(t.Nanosecond()), int32(i)}
	}
	slices.SortFunc(es, func(a, b ent) int {
		if c := cmp.Compare(b.sec, a.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(b.nsec, a.nsec); c != 0 {
			return c
		}
		x, y := &ss[a.i], &ss[b.i]
		// Key() is Harness+":"+ID; neither harness name is a prefix of
		// the other, so comparing the parts orders as the keys do.
		if c := strings.Compare(x.Harness, y.Harness); c != 0 {
			return c
		}
		if c := strings.Compare(x.ID, y.ID); c != 0 {
			return c
		}
		return int(a.i - b.i)
	})
	src := make([]int, len(es)) // position p receives ss[src[p]]
	for p, e := range es {
		src[p] = int(e.i)
	}
	for start := range src {
		if src[start] == start {
			continue
		}
		tmp := ss[start]
		p := start
		for {
			from := src[p]
			src[p] = p
			if from == start {
				ss[p] = tmp
				break
			}
			ss[p] = ss[from]
			p = from
		}
	}
}

// MinPrefix is the shortest id prefix Resolve accepts.
const MinPrefix = 4

// ErrNotFound is returned (wrapped) when no session matches.
var ErrNotFound = errors.New("no such session")

// ErrShortPrefix is returned (wrapped) for a prefix under MinPrefix.
var ErrShortPrefix = errors.New("session id prefix too short")

// AmbiguousError lists the sessions an id prefix matches.
type AmbiguousError struct {
	Query      string
	Candidates []Session
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "session id %q is ambiguous; it matches %d sessions:", e.Query, len(e.Candidates))
	for _, s := range e.Candidates {
		fmt.Fprintf(&b, " %s (%s)", s.Key(), cwdTitle(s.Cwd))
		b.WriteString(";")
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Resolve finds the one session query names: a full id, a unique prefix of
// at least MinPrefix characters of the id or of its body (what ShortIDs
// shows), either optionally qualified as "claude-code:<id>", "codex:<id>"
// or "opencode:<id>". Ids are also compared by body
// (identity.SameSession), so a renamed prefix still resolves. Errors wrap
// ErrNotFound or ErrShortPrefix, or are an *AmbiguousError.
func Resolve(sessions []Session, query string) (Session, error) {
	q := strings.TrimSpace(query)
	harness := ""
	for _, h := range []string{ClaudeCode, Codex, OpenCode} {
		if rest, ok := strings.CutPrefix(q, h+":"); ok {
			harness, q = h, rest
		}
	}
	if q == "" {
		return Session{}, fmt.Errorf("%w: empty id", ErrNotFound)
	}
	var exact, prefix []Session
	lq := strings.ToLower(q)
	for _, s := range sessions {
		if harness != "" && s.Harness != harness {
			continue
		}
		id := strings.ToLower(s.ID)
		switch {
		case id == lq || identity.SameSession(id, lq):
			exact = append(exact, s)
		case strings.HasPrefix(id, lq) || strings.HasPrefix(identity.SessionBody(id), lq):
			// The body's prefix is what ShortIDs shows (OpenCode's
			// ses_dcd13948… is shown as dcd13948…).
			prefix = append(prefix, s)
		}
	}
	if len(exact) == 1 {
		return exact[0], nil
	}
	if len(exact) > 1 {
		return Session{}, &AmbiguousError{Query: query, Candidates: exact}
	}
	if len(q) < MinPrefix {
		return Session{}, fmt.Errorf("%w: %q (give at least %d characters)", ErrShortPrefix, query, MinPrefix)
	}
	switch len(prefix) {
	case 0:
		return Session{}, fmt.Errorf("%w: %q", ErrNotFound, query)
	case 1:
		return prefix[0], nil
	}
	return Session{}, &AmbiguousError{Query: query, Candidates: prefix}
}

// Resolve lists every session (archived included) and resolves query as
// the package-level Resolve does. Diagnostics are ignored: an unreadable
// file cannot be the session asked for.
func (c *Catalog) Resolve(ctx context.Context, query string) (Session, error) {
	all, _, err := c.List(ctx, ListOptions{All: true})
	if err != nil && len(all) == 0 {
		return Session{}, err
	}
	return Resolve(all, query)
}
