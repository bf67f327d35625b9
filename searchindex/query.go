package searchindex

import (
	"context"
	"errors"
	"fmt"
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
	if len(terms) == 0 {
		return nil, ErrEmptyQuery
	}
	return terms, nil
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
	if len(q.Terms) == 0 {
		return nil, ErrEmptyQuery
	}
	match := ftsMatch(q.Terms, q.AllText)
	rs, err := ix.db.QueryContext(ctx, `SELECT f.id, f.key, `+rankExpr+` AS r FROM docs JOIN files f ON f.id = docs.rowid
		WHERE docs MATCH ? ORDER BY r, f.last DESC`, match)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	var hits []Hit
	var ids []int64
	for rs.Next() {
		var id int64
		var h Hit
		if err := rs.Scan(&id, &h.Key, &h.Score); err != nil {
			rs.Close()
			return nil, err
		}
		if q.Keep != nil && !q.Keep(h.Key) {
			continue
		}
		h.Score = -h.Score
		hits, ids = append(hits, h), append(ids, id)
		if q.Limit > 0 && len(hits) == q.Limit {
			break
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	// In batches: SQLite caps a statement's parameters.
	for i := 0; i < len(hits); i += 500 {
		j := min(i+500, len(hits))
		if err := ix.snippets(ctx, match, hits[i:j], ids[i:j], q.AllText); err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// snippets sets each hit's snippets: one per column that matches. One
// query for all hits: the MATCH is evaluated once, not once per hit.
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
	rs, err := ix.db.QueryContext(ctx, `SELECT `+strings.Join(sel, ", ")+` FROM docs WHERE docs MATCH ? AND rowid IN (`+in+`)`, args...)
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
