package main

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/catalog"
)

func TestHandoffText(t *testing.T) {
	s := catalog.Session{
		ID: "d9f7843f-07d6-4b50-9048-40676f77f965", Cwd: "/home/example/src/project",
		FirstPrompt:   "fix the\nflaky test " + strings.Repeat("x", 500),
		RecentPrompts: []string{"a", "b", "c", "d"},
		Evidence: &catalog.Evidence{
			FilesModified:  []string{"/home/example/src/project/a.go"},
			FilesRead:      make([]string, 20),
			CommitsCreated: []catalog.Commit{{SHA: "abc1234", Subject: "fix flake"}},
			WorkRefs:       []catalog.WorkRef{{Rule: "INIT", Ref: "INIT-AB-123"}},
		},
	}
	got := handoffText(s, "prompt too long")
	for _, want := range []string{
		"/home/example/src/project", "d9f7843f-07d6", "(prompt too long)",
		"- First request: fix the flaky test xxx", "…", "  - b\n  - c\n  - d\n",
		"- Files modified: /home/example/src/project/a.go", "(and 8 more)", "abc1234 fix flake", "INIT-AB-123",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("handoff lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "  - a\n") || len(got) > 2000 {
		t.Errorf("handoff not bounded (%d bytes):\n%s", len(got), got)
	}
}
