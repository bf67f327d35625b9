package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/summarize"
)

// Bounds of the handoff summary: enough to continue the work, small
// enough never to matter for the new session's context.
const (
	handoffPromptChars = 300
	handoffListItems   = 12
)

// handoff summarises a Claude session that could not be resumed, from its
// full read (first and latest prompts, files, commits, work references),
// for the system prompt of the fresh session that replaces it.
func (a *App) handoff(transcript, reason string) string {
	c, err := a.catalogFor(catalog.ClaudeCode)
	if err != nil || len(c.Readers) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := c.Readers[0].Get(ctx, catalog.Session{Harness: catalog.ClaudeCode, Source: transcript})
	if err != nil {
		return ""
	}
	summarize.Attach(a.Loc.DataDir, &s)
	if s.Summary != nil {
		// The failed attempt itself may have moved the session on; the
		// summary counts as current when that is all that happened.
		s.Summary.Current = summarize.CoversFailedResume(s.Summary, s)
	}
	return handoffText(s, reason)
}

func handoffText(s catalog.Session, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This is a fresh session continuing earlier work in %s (Claude Code session %s), which could not be resumed (%s). "+
		"What tether recorded of it follows; re-read files before relying on them.\n", s.Cwd, s.ID, reason)
	if sum := s.Summary; sum != nil && sum.Current {
		// A summary that covers the session's last activity says more in
		// fewer words than the excerpt.
		for _, f := range [][2]string{{"Summary", sum.Title}, {"Objective", sum.Objective}, {"Completed", sum.Completed},
			{"Where it stopped", sum.CurrentWork}, {"Likely next", sum.LikelyNext}} {
			if f[1] != "" {
				fmt.Fprintf(&b, "- %s: %s\n", f[0], clip(f[1], 4*handoffPromptChars))
			}
		}
		return b.String()
	}
	if s.FirstPrompt != "" {
		fmt.Fprintf(&b, "- First request: %s\n", clip(s.FirstPrompt, handoffPromptChars))
	}
	if n := len(s.RecentPrompts); n > 0 {
		b.WriteString("- Latest requests:\n")
		for _, p := range s.RecentPrompts[max(0, n-3):] {
			fmt.Fprintf(&b, "  - %s\n", clip(p, handoffPromptChars))
		}
	}
	if ev := s.Evidence; ev != nil {
		list := func(label string, items []string) {
			if len(items) == 0 {
				return
			}
			more := ""
			if len(items) > handoffListItems {
				more = fmt.Sprintf(" (and %d more)", len(items)-handoffListItems)
				items = items[:handoffListItems]
			}
			fmt.Fprintf(&b, "- %s: %s%s\n", label, strings.Join(items, ", "), more)
		}
		list("Files modified", ev.FilesModified)
		list("Files read", ev.FilesRead)
		var commits, refs []string
		for _, c := range ev.CommitsCreated {
			commits = append(commits, strings.TrimSpace(c.SHA+" "+clip(c.Subject, 80)))
		}
		for _, r := range ev.WorkRefs {
			refs = append(refs, r.Ref)
		}
		list("Commits created", commits)
		list("Work references", refs)
	}
	return b.String()
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
