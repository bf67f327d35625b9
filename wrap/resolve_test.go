package wrap

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/internal/eventlog"
)

// A short id tether printed resumes the session: the wrapper hands the
// agent the full id (Claude says "No sessions match" to a prefix).
func TestResumeExpandsUniquePrefix(t *testing.T) {
	for _, args := range [][]string{{"--resume", sid[:8], "-p", "go on"}, {"-r", sid[:8]}, {"--resume=" + sid[:8]}} {
		f := newFixture(t)
		f.writeTranscript(f.root.Path, userRecord(f.root.Path))
		if code := f.runArchived(nil, args...); code != 0 || len(f.calls) != 1 {
			t.Fatalf("%q: code %d calls %d", args, code, len(f.calls))
		}
		want := strings.Join(args, " ")
		want = strings.Replace(want, sid[:8], sid, 1)
		if got := strings.Join(f.calls[0].Args, " "); got != want {
			t.Errorf("%q: agent got %q, want %q", args, got, want)
		}
	}
}

// An archived session (its transcript deleted from the agent's directory)
// resumes by prefix too: expanded, then restored.
func TestResumeExpandsArchivedPrefix(t *testing.T) {
	f := newFixture(t)
	body := userRecord(f.root.Path)
	p := f.writeTranscript(f.root.Path, body)
	st := &archive.Store{Dir: filepath.Join(f.home, "archive"), Mode: archive.ModeCopy}
	if _, err := st.Archive(archive.Source{Harness: eventlog.ClaudeCode, Root: f.claude, Path: p}); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if code := f.runArchived(st, "--resume", strings.ToUpper(sid[:8]), "-p", "go on"); code != 0 || len(f.calls) != 1 {
		t.Fatalf("code %d calls %d", code, len(f.calls))
	}
	if !reflect.DeepEqual(f.calls[0].Args, []string{"--resume", sid, "-p", "go on"}) {
		t.Errorf("agent got %q", f.calls[0].Args)
	}
	if b, _ := os.ReadFile(p); string(b) != body {
		t.Errorf("not restored: %q", b)
	}
}

// A prefix of two sessions starts nothing and names both; a value that
// names nothing tether knows (a title only the agent knows) passes on.
func TestResumeAmbiguousPrefix(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	twin := filepath.Join(filepath.Dir(p), sid[:8]+"-0000-4000-8000-000000000000.jsonl")
	os.WriteFile(twin, []byte(userRecord(f.root.Path)), 0o600)
	_, err := Run(Options{Agent: claude.New(f.claude), Bin: "/bin/false", Args: []string{"--resume", sid[:8]}, Root: f.root,
		Stderr: &f.stderr, Exec: func(c Child) (int, error) { f.calls = append(f.calls, c); return 0, nil }})
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(f.calls) != 0 || strings.Count(err.Error(), "\n") != 0 ||
		!strings.Contains(err.Error(), sid) || !strings.Contains(err.Error(), filepath.Base(twin[:len(twin)-6])) {
		t.Fatalf("err %v, %d runs", err, len(f.calls))
	}
	for _, q := range []string{"my title", "d9f7"[:3], "zzzzzzzz"} {
		f.calls = nil
		if code := f.runArchived(nil, "--resume", q); code != 0 || len(f.calls) != 1 || f.calls[0].Args[1] != q {
			t.Errorf("%q: code %d, calls %v", q, code, f.calls)
		}
	}
}

// A title tether knows (the completion index) resumes its one session.
func TestResumeExpandsKnownTitle(t *testing.T) {
	f := newFixture(t)
	f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	names := func(h string) []Named {
		return []Named{{ID: sid, Title: "fix the parser"}, {ID: "other", Title: "something else"}}
	}
	_, err := Run(Options{Agent: claude.New(f.claude), Bin: "/bin/true", Args: []string{"--resume", "fix the parser"}, Root: f.root,
		Stderr: &f.stderr, Names: names,
		Exec: func(c Child) (int, error) { f.calls = append(f.calls, c); return 0, nil }})
	if err != nil || len(f.calls) != 1 || !reflect.DeepEqual(f.calls[0].Args, []string{"--resume", sid}) {
		t.Fatalf("err %v calls %v", err, f.calls)
	}
}

// Codex: `codex resume PREFIX` gets the thread's full id.
func TestResumeExpandsCodexPrefix(t *testing.T) {
	f := newFixture(t)
	codexHome := filepath.Join(f.home, ".codex")
	day := filepath.Join(codexHome, "sessions", "2026", "11", "30")
	os.MkdirAll(day, 0o700)
	os.WriteFile(filepath.Join(day, "rollout-2026-11-30T10-00-00-"+sid+".jsonl"), []byte("{}\n"), 0o600)
	_, err := Run(Options{Agent: codex.New(codexHome), Bin: "/bin/true", Args: []string{"resume", sid[:8]}, Root: f.root,
		Stderr: &f.stderr,
		Exec:   func(c Child) (int, error) { f.calls = append(f.calls, c); return 0, nil }})
	if err != nil || len(f.calls) != 1 || !reflect.DeepEqual(f.calls[0].Args, []string{"resume", sid}) {
		t.Fatalf("err %v calls %v", err, f.calls)
	}
}
