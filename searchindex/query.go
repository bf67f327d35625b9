package searchindex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/tether-dev/tether/catalog"
)

// ErrEmptyQuery is returned when a query has no word to search for.
var ErrEmptyQuery = errors.New("the query has no word to search for")

// Term is one part of a user query: a word or a "quoted phrase", either
// optionally a prefix (foo*, "foo bar"*).
type Term struct {
	Text   string
	Prefix bool
}

// ParseQuery splits a user's query into terms. Every term must match
// (AND). Nothing the user types is FTS5 syntax: each term is later quoted,
// so operators (AND, OR, NOT, NEAR, column:, ^, parentheses) are words.
// Terms without a letter or digit are dropped (the tokenizer would find no
// token in them).
func ParseQuery(q string) ([]Term, error) {
	// Control characters separate words (SQLite would cut a string at
	// NUL).
	q = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, q)
	var terms []Term
	add := func(text string, prefix bool) {
		if strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 {
			terms = append(terms, Term{Text: text, Prefix: prefix})
		}
	}
	for i := 0; i < len(q); {
		switch c := q[i]; {
		case c == ' ':
			i++
		case c == '"':
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				// An unterminated quote runs to the end.
				add(q[i+1:], false)
				i = len(q)
				break
			}
			phrase := q[i+1 : i+1+end]
			i += end + 2
			prefix := i < len(q) && q[i] == '*'
			if prefix {
				i++
			}
			add(phrase, prefix)
		default:
			end := strings.IndexAny(q[i:], ` "`)
			if end < 0 {
				end = len(q) - i
			}
			word := q[i : i+end]
			i += end
			prefix := strings.HasSuffix(word, "*")
			add(strings.TrimRight(word, "*"), prefix)
		}
	}
	return bound(terms)
}

// A query's work is bounded: FTS5's snippet() scores each instance of a
// matching term against the others, so its cost grows with the square
// of the instances, and a prefix term's instances are those of every
// word it expands to (112 copies of x* over 60 sessions took 56 s, and
// an interrupt is only seen between rows). Repeated terms are searched
// once; beyond these many terms the query is refused; snippets mark at
// most snippetTerms of them.
const (
	MaxTerms       = 32
	MaxPrefixTerms = 8
	snippetTerms   = 4
	snippetPrefix  = 2
)

// ErrTooManyTerms is returned for a query past MaxTerms or
// MaxPrefixTerms (after repeats are dropped).
var ErrTooManyTerms = errors.New("too many terms")

// bound drops repeated terms (the same words, case aside) and refuses a
// query past the limits.
func bound(terms []Term) ([]Term, error) {
	if len(terms) == 0 {
		return nil, ErrEmptyQuery
	}
	seen := make(map[Term]bool, len(terms))
	out := terms[:0:0]
	prefixes := 0
	for _, t := range terms {
		k := Term{Text: strings.ToLower(strings.Join(strings.Fields(t.Text), " ")), Prefix: t.Prefix}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
		if t.Prefix {
			prefixes++
		}
	}
	if len(out) > MaxTerms {
		return nil, fmt.Errorf("%w: the query has %d different terms, at most %d are searched", ErrTooManyTerms, len(out), MaxTerms)
	}
	if prefixes > MaxPrefixTerms {
		return nil, fmt.Errorf("%w: the query has %d different prefixes (word*), at most %d are searched", ErrTooManyTerms, prefixes, MaxPrefixTerms)
	}
	return out, nil
}

// snippetMatch is the FTS5 query snippets are made with: the whole
// words first, then at most snippetPrefix prefixes, snippetTerms in all.
// Every row the full query matched matches it (it ANDs a subset of the
// same terms), and its instances, whose count snippet()'s cost follows,
// are bounded.
func snippetMatch(terms []Term, allText bool) string {
	var some []Term
	for _, t := range terms {
		if !t.Prefix && len(some) < snippetTerms {
			some = append(some, t)
		}
	}
	n := 0
	for _, t := range terms {
		if t.Prefix && n < snippetPrefix && len(some) < snippetTerms {
			some = append(some, t)
			n++
		}
	}
	return ftsMatch(some, allText)
}

// ftsMatch is the FTS5 query for terms: each one a quoted string (quotes
// doubled), all ANDed, limited to the title, summary and prompt columns
// unless allText.
func ftsMatch(terms []Term, allText bool) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = `"` + strings.ReplaceAll(t.Text, `"`, `""`) + `"`
		if t.Prefix {
			parts[i] += "*"
		}
	}
	expr := strings.Join(parts, " AND ")
	if allText {
		return expr
	}
	return "{title summary prompt} : (" + expr + ")"
}

// Query is a search.
type Query struct {
	Terms []Term
	// AllText also searches assistant text and tool calls.
	AllText bool
	// Keep, when set, says whether a session (by key) may be a result:
	// the filters of list.
	Keep func(key string) bool
	// Limit is the most hits returned (0: all).
	Limit int
}

// Hit is one matching session.
type Hit struct {
	Key string
	// Score is -bm25: higher is better.
	Score    float64
	Snippets []catalog.Snippet
}

// bm25 weights by column: a title or summary hit counts most (both say
// what the session is about), assistant text and tool calls least (there
// is much more of them).
const rankExpr = `bm25(docs, 10.0, 10.0, 1.0, 0.5, 0.5)`

// Search returns the sessions matching q, best first (ties: the most
// recent first), with a snippet of each matching column.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	r, err := ix.Rank(ctx, q.Terms, q.AllText)
	if err != nil {
		return nil, err
	}
	return ix.Top(ctx, r, q.Keep, q.Limit)
}

// Ranking is every session matching a query, best first, as the index
// was when it was ranked: a search can rank while the catalog is listed
// and take the ranking if the index was not written since (Current).
type Ranking struct {
	match string
	// snip is the query snippets are made with (snippetMatch).
	snip    string
	allText bool
	ranked  []ranked
	// stamp is the index file's state during the query ("" unknown).
	stamp string
}

type ranked struct {
	id int64
	r  float64 // bm25: lower is better
}

// Rank ranks every session matching terms by bm25 alone: which of them
// are shown (the filters, the limit, ties broken by recency) and their
// snippets are Top's, for the few it returns.
func (ix *Index) Rank(ctx context.Context, terms []Term, allText bool) (*Ranking, error) {
	terms, err := bound(terms)
	if err != nil {
		return nil, err
	}
	r := &Ranking{match: ftsMatch(terms, allText), snip: snippetMatch(terms, allText), allText: allText}
	before := fileStamp(ix.path)
	// No join and no ORDER BY: bm25 over every match is the cost that
	// cannot be avoided, the rest is cheaper in Go.
	rs, err := ix.db.QueryContext(ctx, `SELECT rowid, `+rankExpr+` FROM docs WHERE docs MATCH ?`, r.match)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	for rs.Next() {
		var h ranked
		if err := rs.Scan(&h.id, &h.r); err != nil {
			rs.Close()
			return nil, fmt.Errorf("search index: %w", err)
		}
		r.ranked = append(r.ranked, h)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	// The statement read one state of the file (a read holds SQLite's
	// shared lock): the same stamp before and after it names that state.
	if before != "" && fileStamp(ix.path) == before {
		r.stamp = before
	}
	slices.SortStableFunc(r.ranked, func(a, b ranked) int { return cmp.Compare(a.r, b.r) })
	return r, nil
}

// Current reports whether r was ranked over the index as it is now (no
// write since, by this process or another).
func (ix *Index) Current(r *Ranking) bool {
	return r != nil && r.stamp != "" && r.stamp == fileStamp(ix.path)
}

// Len is how many sessions match.
func (r *Ranking) Len() int { return len(r.ranked) }

// Top returns the best limit (0: all) of r's sessions that keep (nil:
// all) accepts, equal scores the most recent first, with their snippets.
// Only the sessions looked at are read from the files table, and only
// those returned get snippets.
func (ix *Index) Top(ctx context.Context, r *Ranking, keep func(key string) bool, limit int) ([]Hit, error) {
	kept, err := ix.choose(ctx, r, keep, limit)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(kept))
	ids := make([]int64, len(kept))
	for i, c := range kept {
		hits[i], ids[i] = c.Hit, c.id
	}
	// In batches: SQLite caps a statement's parameters.
	for i := 0; i < len(hits); i += 500 {
		j := min(i+500, len(hits))
		if err := ix.snippets(ctx, r.snip, hits[i:j], ids[i:j], r.allText); err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// chosen is a ranked session Top returns.
type chosen struct {
	Hit
	id, last int64
	r        float64
}

// choose walks r best first, reading the files rows in batches, and
// returns the best limit sessions keep accepts, equal scores newest first.
func (ix *Index) choose(ctx context.Context, r *Ranking, keep func(key string) bool, limit int) ([]chosen, error) {
	var kept []chosen
	full := func(next float64) bool {
		// Complete once the limit is reached and the next score differs
		// from the limit-th: a tie with it may yet be more recent.
		return limit > 0 && len(kept) >= limit && next != kept[limit-1].r
	}
	batch := 500
	if limit > 0 {
		batch = min(500, max(64, 2*limit))
	}
	for i := 0; i < len(r.ranked) && !full(r.ranked[i].r); i += batch {
		part := r.ranked[i:min(i+batch, len(r.ranked))]
		rows, err := ix.fileRows(ctx, part)
		if err != nil {
			return nil, err
		}
		for _, h := range part {
			if full(h.r) {
				break
			}
			f, ok := rows[h.id]
			if !ok || keep != nil && !keep(f.key) {
				continue
			}
			kept = append(kept, chosen{Hit: Hit{Key: f.key, Score: -h.r}, id: h.id, last: f.last, r: h.r})
		}
	}
	slices.SortStableFunc(kept, func(a, b chosen) int {
		if c := cmp.Compare(a.r, b.r); c != 0 {
			return c
		}
		return cmp.Compare(b.last, a.last)
	})
	if limit > 0 && len(kept) > limit {
		kept = kept[:limit]
	}
	return kept, nil
}

type fileRow struct {
	key  string
	last int64
}

// fileRows reads the key and last activity of the ranked sessions.
func (ix *Index) fileRows(ctx context.Context, part []ranked) (map[int64]fileRow, error) {
	args := make([]any, len(part))
	for i, h := range part {
		args[i] = h.id
	}
	in := strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")
	rs, err := ix.db.QueryContext(ctx, `SELECT id, key, last FROM files WHERE id IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	defer rs.Close()
	m := make(map[int64]fileRow, len(part))
	for rs.Next() {
		var id int64
		var f fileRow
		if err := rs.Scan(&id, &f.key, &f.last); err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
		m[id] = f
	}
	return m, rs.Err()
}

// snippets sets each hit's snippets: one per column that matches. One
// query for all hits: the MATCH is evaluated once, not once per hit
// (`+rowid` keeps the IN list from FTS5, which would run the MATCH again
// for each id, a prefix's expansion included); snippet() then runs only
// for the rows the IN list names.
func (ix *Index) snippets(ctx context.Context, match string, hits []Hit, ids []int64, allText bool) error {
	n := colPrompt + 1
	if allText {
		n = numCols
	}
	sel := []string{"rowid"}
	for c := range n {
		sel = append(sel, fmt.Sprintf(`snippet(docs, %d, '%s', '%s', '…', 16)`, c, markOpen, markClose))
	}
	at := make(map[int64]int, len(ids))
	args := []any{match}
	for i, id := range ids {
		at[id] = i
		args = append(args, id)
	}
	in := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	rs, err := ix.db.QueryContext(ctx, `SELECT `+strings.Join(sel, ", ")+` FROM docs WHERE docs MATCH ? AND +rowid IN (`+in+`)`, args...)
	if err != nil {
		return fmt.Errorf("search index: snippet: %w", err)
	}
	defer rs.Close()
	vals := make([]string, n)
	var id int64
	ptrs := []any{&id}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return fmt.Errorf("search index: snippet: %w", err)
		}
		h := &hits[at[id]]
		h.Snippets = []catalog.Snippet{}
		for c, v := range vals {
			if strings.Contains(v, markOpen) {
				h.Snippets = append(h.Snippets, parseSnippet(colNames[c], v))
			}
		}
	}
	return rs.Err()
}

// parseSnippet takes the markers out of s, recording where they were.
func parseSnippet(field, s string) catalog.Snippet {
	sn := catalog.Snippet{Field: field, Highlights: [][2]int{}}
	var b strings.Builder
	start := -1
	for _, r := range s {
		switch string(r) {
		case markOpen:
			start = b.Len()
		case markClose:
			if start >= 0 {
				sn.Highlights = append(sn.Highlights, [2]int{start, b.Len()})
				start = -1
			}
		default:
			b.WriteRune(r)
		}
	}
	sn.Text = b.String()
	return sn
}
