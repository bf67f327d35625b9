package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/searchindex"
	"github.com/tether-dev/tether/summarize"
)

// searchIndexPath is the full-text index: a cache, rebuilt when missing.
func searchIndexPath(loc locations.Locations) string {
	return filepath.Join(loc.CacheDir, "search.db")
}

type sessionsSearchOptions struct {
	sessionsBase
	Query   string
	JSON    bool
	AllText bool
	Limit   int
	// The filters of list.
	Harness, Cwd, State string
	Since               time.Duration
	// Index is the index file ("": scan the transcripts instead).
	Index string
	// DataDir holds the stored summaries, searched with the titles.
	DataDir string
}

func (a *App) sessionsSearchCommand() *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "full-text search over titles, summaries and human prompts (and assistant text, tool calls)",
		ArgsUsage: "QUERY",
		Description: "Every word of QUERY must appear in the session's title, stored summary ('tether\n" +
			"sessions summarize') or human prompts (or, with --all-text, assistant text and\n" +
			"tool calls: names, paths, commands). Words match whole words, case- and\n" +
			"accent-insensitively; \"two words\" is a phrase; foo* is a prefix. Nothing else\n" +
			"is syntax. Ranked by relevance (bm25, title and summary hits weighing most),\n" +
			"then recency. Archived Codex threads are included.\n\n" +
			"Answers come from an index in $XDG_CACHE_HOME/tether/search.db, brought up to\n" +
			"date on each search (only what transcripts gained is read). The first search\n" +
			"builds it, showing progress on a terminal.\n\n" +
			"Examples:\n" +
			"  tether sessions search flaky test\n" +
			"  tether sessions search '\"connection refused\"' --since 7d\n" +
			"  tether sessions search --all-text 'migrat*' --harness codex --json",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON (see 'tether sessions schema search')"},
			&cli.BoolFlag{Name: "all-text", Usage: "also search assistant text and tool calls"},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "show at most `N` results (0: all)"},
			&cli.StringFlag{Name: "since", Usage: "only sessions active within `DURATION` (e.g. 90m, 24h, 7d)"},
			&cli.StringFlag{Name: "cwd", Usage: "only sessions whose directory has the same identity root as `DIR`"},
			choice(&cli.StringFlag{Name: "harness", Usage: "only sessions of `HARNESS` (claude-code, codex or opencode)"}, harnessNames...),
			&cli.StringFlag{Name: "state", Usage: "only sessions in `STATE` (running, resumable or unknown)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usageErr(errors.New("search needs a QUERY"))
			}
			opts, err := a.searchOptions(cmd)
			if err != nil {
				return err
			}
			return runSessionsSearch(ctx, opts)
		},
	}
}

func (a *App) searchOptions(cmd *cli.Command) (sessionsSearchOptions, error) {
	st := cmd.String("state")
	h, err := parseHarness(cmd.String("harness"))
	if err != nil {
		return sessionsSearchOptions{}, err
	}
	if st != "" && st != catalog.StateRunning && st != catalog.StateResumable && st != catalog.StateUnknown && st != catalog.StateArchived {
		return sessionsSearchOptions{}, usageErr(fmt.Errorf("--state: %q is not running, resumable, unknown or archived", st))
	}
	// Every harness is listed whatever --harness says: the index follows
	// the whole listing, and a partial one would drop the other harness.
	b, err := a.base("")
	if err != nil {
		return sessionsSearchOptions{}, err
	}
	withoutCounts(b.Catalog)
	opts := sessionsSearchOptions{sessionsBase: b, Query: strings.Join(cmd.Args().Slice(), " "),
		JSON: cmd.Bool("json"), AllText: cmd.Bool("all-text"), Limit: int(cmd.Int("limit")),
		Harness: h, State: st, Index: searchIndexPath(a.Loc), DataDir: a.Loc.DataDir}
	if s := cmd.String("since"); s != "" {
		d, err := parseDuration(s)
		if err != nil {
			return opts, usageErr(fmt.Errorf("--since: %w", err))
		}
		opts.Since = d
	}
	if c := cmd.String("cwd"); c != "" {
		opts.Cwd = identity.Resolve(c).Path
	}
	return opts, nil
}

func runSessionsSearch(ctx context.Context, opts sessionsSearchOptions) error {
	terms, err := searchindex.ParseQuery(opts.Query)
	if err != nil {
		return usageErr(fmt.Errorf("search: %w", err))
	}
	return untilInterrupted(ctx, "search", func() error { return searchTerms(ctx, opts, terms) })
}

// untilInterrupted runs f, returning as soon as ctx ends (SIGINT or
// SIGTERM) without waiting for it: SQLite sees an interrupt only between
// rows, and one row's snippet() or FTS5 write can take long. What f was
// doing is left to the process's exit, which SQLite survives as it does
// a kill (the journal rolls an unfinished write back).
func untilInterrupted(ctx context.Context, what string, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s interrupted", what)
	}
}

func searchTerms(ctx context.Context, opts sessionsSearchOptions, terms []searchindex.Term) error {
	// The index is opened and the query ranked while the catalog is
	// listed (the listing leaves a core idle much of the time); the
	// ranking is taken if the update after the listing writes nothing.
	early := startRanking(ctx, opts.Index, terms, opts.AllText, opts.Limit)
	// The listing collects as a list does; the index update after it
	// may read every transcript (the first build holds ~300 MiB), which
	// the list's 48 MiB soft limit would turn into back-to-back
	// collections: the defaults come back before it.
	restoreGC := listGC()
	all, _, listErr := opts.Catalog.List(ctx, catalog.ListOptions{All: true})
	restoreGC()
	if listErr != nil && len(all) == 0 {
		early.close()
		return listErr
	}
	now := opts.Now()
	keep := func(s *catalog.Session) bool {
		switch {
		case opts.Harness != "" && s.Harness != opts.Harness:
		case opts.Since > 0 && s.LastActivity.Before(now.Add(-opts.Since)):
		case opts.Cwd != "" && s.IdentityRoot != opts.Cwd:
		case opts.State != "" && s.State != opts.State:
		default:
			return true
		}
		return false
	}
	// A reader that failed (its storage root unreadable for now) has not
	// deleted its sessions: keep their entries rather than rebuild them.
	retain := func(string) bool { return listErr != nil }
	res, engine, err := searchIndexed(ctx, opts, early, terms, all, keep, retain)
	if searchindex.IsCorrupt(err) {
		// A cache: the next search builds it anew.
		_ = searchindex.Remove(opts.Index)
	}
	if ctx.Err() != nil {
		// Interrupted: no scan of every transcript in its place.
		return ctx.Err()
	}
	if err != nil {
		// The index is a cache: without it, every transcript is scanned.
		fmt.Fprintf(opts.IO.ErrOut, "tether: search index unavailable, scanning transcripts instead: %v\n", err)
		res, engine = searchStreaming(ctx, opts, all, keep), "stream"
	}
	if res == nil {
		res = []catalog.SearchResult{}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, catalog.SearchOutput{Query: opts.Query, Engine: engine, Results: res})
	}
	if len(res) == 0 {
		return notFound(fmt.Errorf("no session matches %q", opts.Query))
	}
	printSearchResults(opts.IO.Out, res, now, opts.IO.ColorOut(), catalog.Abbrev(all))
	return nil
}

// ranking is an index opened, and a query ranked over it, while the
// catalog is listed; with its best sessions chosen and their snippets
// made as if no filter applied (top), and the keys that choice looked at
// (seen): when the listing has every one of them and the filters keep
// them all, the filters change nothing and top is the answer.
type ranking struct {
	done chan struct{}
	ix   *searchindex.Index
	r    *searchindex.Ranking
	err  error
	top  []searchindex.Hit
	seen []string
}

// speculateMax is the largest --limit whose results are chosen while
// the catalog is listed (--limit 0, every match, is not).
const speculateMax = 100

// startRanking opens the index at path and ranks terms in the
// background; nil when there is no index file.
func startRanking(ctx context.Context, path string, terms []searchindex.Term, allText bool, limit int) *ranking {
	if path == "" {
		return nil
	}
	e := &ranking{done: make(chan struct{})}
	go func() {
		defer close(e.done)
		if e.ix, e.err = searchindex.Open(path); e.err != nil {
			return
		}
		// A failed ranking is done again after the update.
		var err error
		if e.r, err = e.ix.Rank(ctx, terms, allText); err != nil || limit <= 0 || limit > speculateMax {
			return
		}
		record := func(key string) bool { e.seen = append(e.seen, key); return true }
		if e.top, err = e.ix.Top(ctx, e.r, record, limit); err != nil {
			e.top, e.seen = nil, nil
		}
	}()
	return e
}

// wait returns the open index (or why it could not be opened).
func (e *ranking) wait() (*searchindex.Index, error) {
	if e == nil {
		return nil, errors.New("no index file")
	}
	<-e.done
	return e.ix, e.err
}

// close closes the index, once the ranking is done.
func (e *ranking) close() {
	if ix, err := e.wait(); err == nil {
		ix.Close()
	}
}

// searchIndexed updates the index from the listing and queries it. The
// results of the ranking taken during the listing are chosen (the files
// rows looked at, the snippets) beside the update, which on a warm search
// only checks that the listing is the one last indexed: they are kept
// when the update wrote nothing, else chosen again from a new ranking.
func searchIndexed(ctx context.Context, opts sessionsSearchOptions, early *ranking, terms []searchindex.Term, all []catalog.Session,
	keep func(*catalog.Session) bool, retain func(string) bool) ([]catalog.SearchResult, string, error) {
	ix, err := early.wait()
	if err != nil {
		return nil, "", err
	}
	defer ix.Close()
	byKey := make(chan sessionsByKey, 1)
	spec := make(chan specResults, 1)
	go func() {
		sr := specResults{r: early.r}
		if !ix.Current(sr.r) {
			spec <- sr
			return
		}
		if res, ok := unfiltered(early, all, keep); ok {
			sr.res = res
			spec <- sr
			return
		}
		m := newSessionsByKey(all)
		byKey <- m
		sr.res, sr.err = topResults(ctx, ix, sr.r, m, keep, opts.Limit)
		spec <- sr
	}()
	_, err = updateSearchIndex(ctx, opts.IO, ix, opts.DataDir, all, retain)
	sr := <-spec
	if err != nil {
		return nil, "", err
	}
	if sr.err == nil && sr.res != nil && ix.Current(sr.r) {
		// Nothing wrote the index since the ranking: the results chosen
		// beside the update are the ones chosen now would be.
		return sr.res, "index", nil
	}
	r := sr.r
	if !ix.Current(r) {
		// The update (or another tether) wrote the index since.
		if r, err = ix.Rank(ctx, terms, opts.AllText); err != nil {
			return nil, "", err
		}
	}
	var m sessionsByKey
	select {
	case m = <-byKey:
	default:
		m = newSessionsByKey(all)
	}
	res, err := topResults(ctx, ix, r, m, keep, opts.Limit)
	if err != nil {
		return nil, "", err
	}
	return res, "index", nil
}

// specResults are results chosen from ranking r beside the update.
type specResults struct {
	r   *searchindex.Ranking
	res []catalog.SearchResult
	err error
}

// unfiltered returns the results chosen during the listing when the
// filters change nothing about them: every session that choice looked at
// is listed and kept. Only those few sessions are looked up, in one pass
// over the listing.
func unfiltered(e *ranking, all []catalog.Session, keep func(*catalog.Session) bool) ([]catalog.SearchResult, bool) {
	if e.top == nil {
		return nil, false
	}
	want := make(map[hid]*catalog.Session, len(e.seen))
	for _, k := range e.seen {
		h, id, _ := strings.Cut(k, ":")
		want[hid{h, id}] = nil
	}
	found := 0
	for i := range all {
		k := hid{all[i].Harness, all[i].ID}
		if s, ok := want[k]; ok {
			if s == nil {
				found++
			}
			want[k] = &all[i] // the last of a key listed twice, as sessionsByKey
		}
	}
	if found != len(want) {
		return nil, false
	}
	for _, s := range want {
		if !keep(s) {
			return nil, false
		}
	}
	res := make([]catalog.SearchResult, 0, len(e.top))
	for _, h := range e.top {
		hk, id, _ := strings.Cut(h.Key, ":")
		res = append(res, searchResult(*want[hid{hk, id}], h))
	}
	return res, true
}

// sessionsByKey finds a listed session by its index key ("harness:id")
// without building that string per session.
type sessionsByKey map[hid]*catalog.Session

type hid struct{ harness, id string }

func newSessionsByKey(all []catalog.Session) sessionsByKey {
	m := make(sessionsByKey, len(all))
	for i := range all {
		m[hid{all[i].Harness, all[i].ID}] = &all[i]
	}
	return m
}

func (m sessionsByKey) get(key string) *catalog.Session {
	h, id, _ := strings.Cut(key, ":")
	return m[hid{h, id}]
}

// topResults are the best limit sessions of r that keep accepts, with
// their snippets.
func topResults(ctx context.Context, ix *searchindex.Index, r *searchindex.Ranking, byKey sessionsByKey,
	keep func(*catalog.Session) bool, limit int) ([]catalog.SearchResult, error) {
	hits, err := ix.Top(ctx, r, func(key string) bool { s := byKey.get(key); return s != nil && keep(s) }, limit)
	if err != nil {
		return nil, err
	}
	res := make([]catalog.SearchResult, 0, len(hits))
	for _, h := range hits {
		res = append(res, searchResult(*byKey.get(h.Key), h))
	}
	return res, nil
}

// searchResult is hit h of session s.
func searchResult(s catalog.Session, h searchindex.Hit) catalog.SearchResult {
	r := catalog.SearchResult{Session: s, Score: h.Score, Matches: []string{}, Snippets: h.Snippets}
	for _, sn := range h.Snippets {
		r.Matches = append(r.Matches, sn.Text)
	}
	return r
}

// updateSearchIndex brings the open index in line with the listing all
// (every session, archived included), with a progress line on a
// terminal.
func updateSearchIndex(ctx context.Context, ios *iostreams.IOStreams, ix *searchindex.Index, dataDir string, all []catalog.Session,
	retain func(string) bool) (searchindex.UpdateStats, error) {
	prog := newProgress(ios.ErrOut, ios.StderrTTY)
	// Retain is also where archived sessions (kept out of the agents'
	// directories) will be kept once the catalog knows them.
	stamps := summaryStamps(dataDir)
	st, err := ix.Update(ctx, all, searchindex.UpdateOptions{Progress: prog.update, Retain: retain, Open: catalog.ArchiveOpen,
		Waiting: prog.waiting,
		SummaryStamp: func(s *catalog.Session) string {
			if len(stamps) == 0 {
				return "" // no summary: no key to build
			}
			return stamps[s.Key()]
		},
		SummaryText: func(s *catalog.Session) (string, error) { return summaryText(dataDir, s) }})
	prog.done()
	if err != nil {
		return st, fmt.Errorf("update %s: %w", ix.Path(), err)
	}
	return st, nil
}

// searchStreaming is the fallback: every transcript read per query.
func searchStreaming(ctx context.Context, opts sessionsSearchOptions, all []catalog.Session, keep func(*catalog.Session) bool) []catalog.SearchResult {
	var some []catalog.Session
	for i := range all {
		if keep(&all[i]) {
			some = append(some, all[i])
		}
	}
	// Summaries are searched too, but not printed: as from the index.
	summarize.AttachAll(opts.DataDir, some)
	res := catalog.Search(ctx, some, opts.Query, catalog.SearchOptions{AllText: opts.AllText, Open: catalog.ArchiveOpen})
	if opts.Limit > 0 && len(res) > opts.Limit {
		res = res[:opts.Limit]
	}
	for i := range res {
		res[i].Session.Summary = nil
	}
	return res
}

// summaryStamps are the stored summaries' stamps by session key: each
// file's inode, size and mtime, from one directory read per harness and a
// stat per file (none is opened). A summary is saved by renaming a new
// file into place, so a redone one gets a new inode even within one
// mtime tick.
func summaryStamps(dataDir string) map[string]string {
	m := map[string]string{}
	if dataDir == "" {
		return m
	}
	for _, h := range []string{catalog.ClaudeCode, catalog.Codex} {
		dir := filepath.Join(summarize.Dir(dataDir), h)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok {
				continue
			}
			// Stat, not the entry's lstat: a linked summary is its target.
			fi, err := os.Stat(filepath.Join(dir, e.Name()))
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			var ino uint64
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				ino = uint64(st.Ino)
			}
			m[h+":"+id] = fmt.Sprintf("%d/%d/%d", ino, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return m
}

// summaryText is the searchable text of a session's stored summary.
func summaryText(dataDir string, s *catalog.Session) (string, error) {
	sum, err := summarize.Load(dataDir, s.Harness, s.ID)
	if err != nil || sum == nil {
		return "", err
	}
	return catalog.SummaryText(sum), nil
}

func printSearchResults(w io.Writer, res []catalog.SearchResult, now time.Time, color bool, ab *identity.Abbreviator) {
	for _, r := range res {
		fmt.Fprintf(w, "%s  %-11s  %s  %s  %s\n", cell(ab.Short(r.Session.ID), 40), r.Session.Harness,
			relTime(now, r.Session.LastActivity), cell(safeLine(filepath.Base(r.Session.Cwd)), 24), cell(safeLine(r.Session.Title), 70))
		if r.Snippets == nil {
			for _, m := range r.Matches {
				fmt.Fprintf(w, "    %s\n", cell(safeLine(m), 120))
			}
			continue
		}
		for _, sn := range r.Snippets {
			fmt.Fprintf(w, "    %-9s %s\n", sn.Field+":", highlight(sn, color))
		}
	}
}

// highlight renders a snippet on one line with its matches marked: bold
// on a colour terminal, **like this** otherwise. Control and bidi
// characters in the text are replaced, so the text cannot drive the
// terminal.
func highlight(sn catalog.Snippet, color bool) string {
	on, off := "**", "**"
	if color {
		on, off = "\x1b[1;4m", "\x1b[0m"
	}
	var b strings.Builder
	at := 0
	for _, h := range sn.Highlights {
		if h[0] < at || h[1] > len(sn.Text) || h[0] > h[1] {
			continue
		}
		b.WriteString(safeLine(sn.Text[at:h[0]]))
		b.WriteString(on + safeLine(sn.Text[h[0]:h[1]]) + off)
		at = h[1]
	}
	b.WriteString(safeLine(sn.Text[at:]))
	return b.String()
}

// safeLine folds whitespace runs to one space and escapes what termsafe
// escapes, so a snippet is one safe line.
func safeLine(s string) string {
	return termsafe.String(blankRuns.ReplaceAllString(s, " "))
}

// blankRuns are runs of white space; the ends are kept, as a snippet is
// cut into pieces around its highlights.
var blankRuns = regexp.MustCompile(`\s+`)

// progress shows "indexing N/M transcripts" on a terminal's stderr while
// a build reads many transcripts; nothing when stderr is not a terminal.
type progress struct {
	w     io.Writer
	tty   bool
	shown bool
	last  time.Time
}

func newProgress(w io.Writer, tty bool) *progress { return &progress{w: w, tty: tty} }

func (p *progress) update(done, total int) {
	// A handful of grown transcripts is too quick to be worth a line.
	if !p.tty || total < 50 || time.Since(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last, p.shown = time.Now(), true
	fmt.Fprintf(p.w, "\rtether: indexing transcripts for search: %d/%d\x1b[K", done, total)
}

// waiting says, on a terminal, that another tether is writing the index
// (a first build takes a while): this one waits for it.
func (p *progress) waiting() {
	if p.tty {
		p.shown = true
		fmt.Fprint(p.w, "\rtether: waiting for another tether to finish writing the search index")
	}
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
