package catalog

import (
	"bytes"
	"context"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/agent/claude"

	"github.com/tidwall/gjson"
)

// SearchResult is one session that matched, with the matching texts.
type SearchResult struct {
	Session Session `json:"session"`
	Score   int     `json:"score"`
	// Matches are the matching titles, prompts or (with --all-text)
	// assistant texts, cut around the first hit.
	Matches []string `json:"matches"`
}

// SearchOptions tune Search.
type SearchOptions struct {
	// AllText also searches assistant text.
	AllText bool
	Open    Opener
}

// Search finds the sessions whose title or human prompts (and assistant
// text with AllText) contain every word of query, case-insensitively. Files
// are streamed; only lines holding a query word are parsed. Results are
// ranked by score (title hits weigh most), then recency.
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
					results[i] = searchOne(sessions[i], terms, opts.AllText, open)
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

func searchOne(s Session, terms []string, allText bool, open Opener) *SearchResult {
	found := map[string]bool{}
	score := 0
	var matches []string
	consider := func(text string, weight int) {
		lt := strings.ToLower(text)
		hit := false
		for _, t := range terms {
			if n := strings.Count(lt, t); n > 0 {
				found[t] = true
				score += n * weight
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
	if s.Source != "" {
		if f, err := open(s.Source); err == nil {
			var low []byte
			bterms := make([][]byte, len(terms))
			for i, t := range terms {
				bterms[i] = []byte(t)
			}
			_ = streamLines(f, func(line []byte) {
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
				for _, text := range searchableText(s.Harness, line, allText) {
					consider(text, 1)
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

// searchableText returns the human prompt (and assistant text) of a record.
func searchableText(harness string, line []byte, allText bool) []string {
	switch harness {
	case ClaudeCode:
		rec, ok := claude.ParseRec(string(line))
		if !ok {
			return nil
		}
		switch rec.Type {
		case claude.TypeUser:
			if t, ok := claude.HumanPrompt(rec); ok {
				return []string{t}
			}
		case claude.TypeAssistant:
			if allText && !rec.Sidechain {
				var out []string
				rec.Message.Get("content").ForEach(func(_, b gjson.Result) bool {
					if b.Get("type").String() == "text" {
						out = append(out, b.Get("text").String())
					}
					return true
				})
				return out
			}
		case claude.TypeCustomTitle, claude.TypeAITitle, claude.TypeSummary:
			return []string{rec.CustomTitle + rec.AITitle + rec.Summary}
		}
	case Codex:
		if !gjson.ValidBytes(line) {
			return nil
		}
		rec := gjson.ParseBytes(line)
		p := rec.Get("payload")
		switch {
		case rec.Get("type").String() == "event_msg" && p.Get("type").String() == "user_message":
			return []string{p.Get("message").String()}
		case rec.Get("type").String() == "response_item" && p.Get("type").String() == "message":
			switch p.Get("role").String() {
			case "user":
				if t, ok := codexHumanText(p); ok {
					return []string{t}
				}
			case "assistant":
				if allText {
					var out []string
					p.Get("content").ForEach(func(_, b gjson.Result) bool {
						out = append(out, b.Get("text").String())
						return true
					})
					return out
				}
			}
		}
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
	out := oneLine(s, 120)
	if start > 0 {
		out = "…" + out
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
