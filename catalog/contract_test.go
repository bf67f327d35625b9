package catalog

import (
	"context"
	"errors"
	"testing"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// TestReaderContract checks the invariants every reader promises, over
// every fixture layout the other tests build.
func TestReaderContract(t *testing.T) {
	cdir := sessiontest.ClaudeHome(t)
	xdb, _ := sessiontest.CodexHome(t, true)
	xfiles, _ := sessiontest.CodexHome(t, false)
	readers := []Reader{
		&claudesessions.Reader{Dir: cdir, Procs: sessiontest.Procs{}},
		&codexsessions.Reader{Dir: xdb},
		&codexsessions.Reader{Dir: xfiles},
	}
	for _, r := range readers {
		ss, _, err := r.List(context.Background(), ListOptions{All: true})
		if err != nil {
			t.Fatalf("%s: %v", r.Harness(), err)
		}
		if len(ss) == 0 {
			t.Fatalf("%s: no sessions", r.Harness())
		}
		for _, s := range ss {
			checkInvariants(t, s)
			full, err := r.Get(context.Background(), s)
			if err != nil {
				t.Errorf("%s: Get: %v", s.Key(), err)
				continue
			}
			checkInvariants(t, full)
			if full.ID != s.ID || full.Cwd != s.Cwd || full.Counts == nil || full.Evidence == nil {
				t.Errorf("%s: Get changed keys or lacks full data: %+v", s.Key(), full)
			}
		}
	}
}

func checkInvariants(t *testing.T, s Session) {
	t.Helper()
	if s.Harness != ClaudeCode && s.Harness != Codex || s.ID == "" || s.Cwd == "" || s.IdentityRoot == "" || s.Title == "" || s.TitleSource == "" {
		t.Errorf("%s: empty key field: %+v", s.Key(), s)
	}
	if s.Created.IsZero() || s.LastActivity.Before(s.Created) {
		t.Errorf("%s: last activity %v before created %v", s.Key(), s.LastActivity, s.Created)
	}
	if s.LastHumanActivity != nil && s.LastHumanActivity.After(s.LastActivity) {
		t.Errorf("%s: last human %v after last activity %v", s.Key(), s.LastHumanActivity, s.LastActivity)
	}
	if len(s.Resume.Argv) == 0 || s.Resume.Argv[0] == "" || s.Resume.Dir == "" {
		t.Errorf("%s: resume spec %+v", s.Key(), s.Resume)
	}
	switch s.State {
	case StateRunning, StateResumable, StateUnknown:
	default:
		t.Errorf("%s: state %q", s.Key(), s.State)
	}
}

func TestResolve(t *testing.T) {
	ss := []Session{
		{Harness: ClaudeCode, ID: "abcd1234-0000-0000-0000-000000000001", Cwd: "/a"},
		{Harness: ClaudeCode, ID: "abcd1299-0000-0000-0000-000000000002", Cwd: "/b"},
		{Harness: Codex, ID: "abcd1234-ffff-7000-0000-000000000003", Cwd: "/c"},
		{Harness: Codex, ID: "0199eeee-ffff-7000-0000-000000000004", Cwd: "/d"},
	}
	ok := map[string]string{
		"abcd1234-0000-0000-0000-000000000001": "claude-code:abcd1234-0000-0000-0000-000000000001",
		"ABCD12340000":                         "",
		"abcd1299":                             "claude-code:abcd1299-0000-0000-0000-000000000002",
		"0199":                                 "codex:0199eeee-ffff-7000-0000-000000000004",
		"codex:abcd":                           "codex:abcd1234-ffff-7000-0000-000000000003",
		"claude-code:abcd1234":                 "claude-code:abcd1234-0000-0000-0000-000000000001",
		"session_abcd1234-0000-0000-0000-000000000001": "claude-code:abcd1234-0000-0000-0000-000000000001",
	}
	for q, want := range ok {
		got, err := Resolve(ss, q)
		if want == "" {
			if err == nil {
				t.Errorf("%q: want error, got %s", q, got.Key())
			}
			continue
		}
		if err != nil || got.Key() != want {
			t.Errorf("%q: got %s, %v; want %s", q, got.Key(), err, want)
		}
	}
	_, err := Resolve(ss, "abcd")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 3 {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := Resolve(ss, "abc"); !errors.Is(err, ErrShortPrefix) {
		t.Errorf("short: %v", err)
	}
	if _, err := Resolve(ss, "9999"); !errors.Is(err, ErrNotFound) {
		t.Errorf("none: %v", err)
	}
}

func TestRemoteID(t *testing.T) {
	for in, want := range map[string]string{
		"git@github.com:org/repo.git":          "github.com/org/repo",
		"https://github.com/org/repo.git":      "github.com/org/repo",
		"https://user@gitlab.com/g/sub/r":      "gitlab.com/g/sub/r",
		"ssh://git@host.example:2222/org/repo": "host.example/org/repo",
		"/srv/git/repo.git":                    "/srv/git/repo",
	} {
		if got := RemoteID(in); got != want {
			t.Errorf("RemoteID(%q) = %q, want %q", in, got, want)
		}
	}
}
