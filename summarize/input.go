package summarize

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
)

// Input bounds: DefaultBudget tokens, estimated at CharsPerToken.
const (
	DefaultBudget = 8000
	CharsPerToken = 4
	// RecentTools is how many tool calls the input lists.
	RecentTools = 20
	// maxPrompt and maxAssistant cut one prompt and the last assistant
	// text before the budget is applied.
	maxPrompt    = 2000
	maxAssistant = 4000
	maxList      = 40
	// MinBudget is the smallest budget accepted: room for the headers.
	MinBudget = 200
)

// Evidence is everything a summary is made from: the catalog's full read
// of the session, the end of its transcript, and the previous summary.
type Evidence struct {
	Session  catalog.Session
	Recent   agent.Recent
	Previous *catalog.Summary
}

// Input is what is sent to the provider: the text, its estimated size and
// what was cut to fit the budget.
type Input struct {
	Text   string
	Tokens int
	Cut    []string
}

// section is one part of the input; parts are dropped from the least
// useful up when the budget is exceeded.
type section struct {
	name  string
	lines []string
	// keep is how many lines survive the cut of the section as a whole
	// (at least the first); 0 means the section goes entirely.
	keep int
}

// Build makes the input for a session, cut to budget tokens. The same
// evidence always gives the same input.
func Build(ev Evidence, budget int) Input {
	if budget <= 0 {
		budget = DefaultBudget
	}
	budget = max(budget, MinBudget)
	secs := sections(ev)
	// Cut order: the least telling first. Each step halves a section's
	// lines (keeping the newest where order is time) until it fits.
	order := []string{"files read", "tool activity", "earlier prompts", "files modified", "repositories", "commits", "last assistant text", "previous summary", "first prompt", "latest prompt"}
	var cut []string
	for _, name := range order {
		for estimate(render(secs, cut)) > budget {
			s := find(secs, name)
			if s == nil || len(s.lines) == 0 {
				break
			}
			before := len(s.lines)
			s.lines = shrink(name, s.lines)
			if name == "first prompt" || name == "latest prompt" || name == "last assistant text" || name == "previous summary" {
				// One long text: cut it in half instead of dropping it.
				s.lines = halveText(s.lines)
			}
			cut = appendCut(cut, name, before, len(s.lines))
		}
	}
	text := render(secs, cut)
	for estimate(text) > budget {
		// Still over (a budget smaller than the headers): hard cut.
		r := []rune(text)
		text = string(r[:budget*CharsPerToken-1]) + "…"
		cut = append(cut, "input cut to the budget")
	}
	return Input{Text: text, Tokens: estimate(text), Cut: cut}
}

func estimate(s string) int { return (utf8.RuneCountInString(s) + CharsPerToken - 1) / CharsPerToken }

func find(secs []section, name string) *section {
	for i := range secs {
		if secs[i].name == name {
			return &secs[i]
		}
	}
	return nil
}

// shrink drops the older half of a list (lists are oldest first).
func shrink(name string, lines []string) []string {
	switch name {
	case "first prompt", "latest prompt", "last assistant text", "previous summary":
		return lines
	}
	if len(lines) <= 1 {
		return nil
	}
	return lines[len(lines)/2:]
}

func halveText(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	r := []rune(strings.Join(lines, "\n"))
	if len(r) < 80 {
		return nil
	}
	return []string{string(r[:len(r)/2]) + "…[cut]"}
}

// appendCut records a cut once per section, with the final count.
func appendCut(cut []string, name string, before, after int) []string {
	note := fmt.Sprintf("%s: shortened", name)
	if after == 0 {
		note = fmt.Sprintf("%s: left out", name)
	}
	for i, c := range cut {
		if strings.HasPrefix(c, name+":") {
			cut[i] = note
			return cut
		}
	}
	_ = before
	return append(cut, note)
}

func sections(ev Evidence) []section {
	s := ev.Session
	var secs []section
	add := func(name string, lines ...string) { secs = append(secs, section{name: name, lines: lines}) }
	add("session", fmt.Sprintf("harness: %s", s.Harness), fmt.Sprintf("cwd: %s", s.Cwd))
	if e := s.Evidence; e != nil {
		var repos, commits, refs []string
		for _, r := range e.Repos {
			repos = append(repos, strings.TrimSpace(r.Root+" "+r.ID))
		}
		for _, c := range e.CommitsCreated {
			commits = append(commits, strings.TrimSpace(c.SHA+" "+oneLine(c.Subject, 120)))
		}
		for _, r := range e.WorkRefs {
			refs = append(refs, r.Ref)
		}
		add("repositories", last(repos, maxList)...)
		add("work references", last(refs, maxList)...)
		add("commits", last(commits, maxList)...)
		add("files modified", last(e.FilesModified, maxList)...)
		add("files read", last(e.FilesRead, maxList)...)
	}
	if s.FirstPrompt != "" {
		add("first prompt", oneLine(s.FirstPrompt, maxPrompt))
	}
	if n := len(s.RecentPrompts); n > 0 {
		var earlier []string
		for i, p := range s.RecentPrompts[:n-1] {
			if i == 0 && oneLine(p, maxPrompt) == oneLine(s.FirstPrompt, maxPrompt) {
				continue // the first prompt, listed already
			}
			earlier = append(earlier, oneLine(p, maxPrompt))
		}
		add("earlier prompts", earlier...)
		add("latest prompt", oneLine(s.RecentPrompts[n-1], maxPrompt))
	}
	var tools []string
	for _, a := range ev.Recent.Tools {
		tools = append(tools, strings.TrimSpace(a.Tool+" "+strings.Join(a.Paths, " ")))
	}
	add("tool activity", tools...)
	if t := ev.Recent.LastAssistant; t != "" {
		add("last assistant text", oneLine(t, maxAssistant))
	}
	if p := ev.Previous; p != nil {
		add("previous summary", oneLine(fmt.Sprintf("%s. Objective: %s Completed: %s Current work: %s Likely next: %s",
			p.Title, p.Objective, p.Completed, p.CurrentWork, p.LikelyNext), maxAssistant))
	}
	return secs
}

func render(secs []section, cut []string) string {
	var b strings.Builder
	for _, s := range secs {
		if len(s.lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n", s.name)
		for _, l := range s.lines {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if len(cut) > 0 {
		fmt.Fprintf(&b, "## cut to fit the input budget\n- %s\n", strings.Join(cut, "\n- "))
	}
	return b.String()
}

func last(ss []string, n int) []string {
	if len(ss) > n {
		return ss[len(ss)-n:]
	}
	return ss
}

// oneLine folds whitespace and cuts s to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(Clean(s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
