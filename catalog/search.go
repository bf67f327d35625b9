package catalog

import (
	"bytes"
	"context"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/scan"
)

// SearchResult is one session that matched, with the matching texts.
type SearchResult struct {
	Session Session `json:"session"`
	// Score orders results, higher first: the negated bm25 rank from the
	// index, the number of hits (title hits weighing 10) when streaming.
	Score float64 `json:"score"`
	// Matches are the matching titles, summaries, prompts or (with --all-text)
	// assistant texts and tool calls, cut around the first hit.
	Matches []string `json:"matches"`
	// Snippets locate the matches in each matching field (index only).
	Snippets []Snippet `json:"snippets,omitempty"`
}

// SearchOptions tune Search.
type SearchOptions struct {
	// AllText also searches assistant text and tool calls.
	AllText bool
	Open    Opener
}

// Search finds the sessions whose title, summary (when attached) or human
// prompts (and assistant text and tool calls with AllText) contain every
// word of query, case-insensitively. Files are streamed; only lines
// holding a query word are parsed. Results are ranked by score (title and
// summary hits weigh most), then recency. It is the fallback of `tether sessions search` when its index
// cannot be used.
func Search(ctx context.Context, sessions []Session, query string, opts SearchOptions) []SearchResult {
	terms := strings.Fields(strings.ToLower(query))
	if len(terms) == 0 {
		return nil
	}
	open := opts.Open
	if open == nil {
		open = OSOpen
	}
	results := make([]*SearchResult, len(sessions))
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if ctx.Err() == nil {
					results[i] = searchOne(ctx, sessions[i], terms, opts.AllText, open)
				}
			}
		}()
	}
	for i := range sessions {
		work <- i
	}
	close(work)
	wg.Wait()
	var out []SearchResult
	for _, r := range results {
		if r != nil {
			out = append(out, *r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Session.LastActivity.After(out[j].Session.LastActivity)
	})
	return out
}

func searchOne(ctx context.Context, s Session, terms []string, allText bool, open Opener) *SearchResult {
	found := map[string]bool{}
	score := 0.0
	var matches []string
	consider := func(text string, weight int) {
		lt := strings.ToLower(text)
		hit := false
		for _, t := range terms {
			if n := strings.Count(lt, t); n > 0 {
				found[t] = true
				score += float64(n * weight)
				hit = true
			}
		}
		if hit && len(matches) < 5 {
			sn := snippet(text, lt, terms)
			for _, m := range matches {
				if m == sn {
					return
				}
			}
			matches = append(matches, sn)
		}
	}
	consider(s.Title, 10)
	if s.Summary != nil {
		consider(SummaryText(s.Summary), 10)
	}
	rows, _ := SessionTexts(ctx, &s, allText, nil, func(t Text) { consider(t.Text, 1) })
	if s.Source != "" && !rows {
		if f, err := open(s.Source); err == nil {
			var low []byte
			bterms := make([][]byte, len(terms))
			for i, t := range terms {
				bterms[i] = []byte(t)
			}
			_ = scan.StreamLines(f, func(line []byte) {
				low = lowerASCII(low[:0], line)
				any := false
				for _, t := range bterms {
					if bytes.Contains(low, t) {
						any = true
						break
					}
				}
				if !any {
					return
				}
				for _, t := range recordTexts(s.Harness, line, allText, false, nil) {
					consider(t.Text, 1)
				}
			})
			f.Close()
		}
	}
	if len(found) != len(terms) {
		return nil
	}
	if matches == nil {
		matches = []string{}
	}
	return &SearchResult{Session: s, Score: score, Matches: matches}
}

// SummaryText is the searchable text of a summary: its title, objective,
// completed, current work and likely next, one a line.
func SummaryText(sum *Summary) string {
	return strings.Join([]string{sum.Title, sum.Objective, sum.Completed, sum.CurrentWork, sum.LikelyNext}, "\n")
}

// recordTexts returns the searchable texts of one transcript record:
// titles and human prompts, and with all assistant text and tool calls.
// With zeroCopy the texts may alias line. With mc set, the record is
// also counted (MessageCount's rule) from the same parse.
func recordTexts(harness string, line []byte, all, zeroCopy bool, mc *MessageCount) []Text {
	if f := agent.FormatOf(harness); f != nil {
		return f.RecordTexts(line, all, zeroCopy, mc)
	}
	return nil
}

func lowerASCII(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// snippet cuts text to about 120 characters around the first term.
func snippet(text, lower string, terms []string) string {
	at := -1
	for _, t := range terms {
		if i := strings.Index(lower, t); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	start := max(0, at-40)
	for start > 0 && start < len(text) && !isRuneStart(text[start]) {
		start--
	}
	s := text[start:]
	out := scan.OneLine(s, 120)
	if start > 0 {
		out = "…" + out
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
