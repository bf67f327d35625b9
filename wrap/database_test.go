package wrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
)

const ocID = "ses_dcb4b0e4cffeMvX0Jl9MZ0QL8u"

// fakeFinder is a session reader of a database holding sessions (err:
// one that cannot be read).
type fakeFinder struct {
	agent.Reader
	sessions map[string]agent.Session
	err      error
}

func (f fakeFinder) Find(_ context.Context, id string) (agent.Session, bool, error) {
	s, ok := f.sessions[id]
	return s, ok, f.err
}

func (f fakeFinder) IDsWithPrefix(_ context.Context, prefix string, limit int) ([]string, error) {
	var ids []string
	for id := range f.sessions {
		if strings.HasPrefix(strings.ToLower(id), strings.ToLower(prefix)) ||
			strings.HasPrefix(strings.ToLower(identity.SessionBody(id)), strings.ToLower(prefix)) {
			ids = append(ids, id)
		}
	}
	return ids[:min(len(ids), limit)], f.err
}

func (f fakeFinder) Latest(context.Context, string, time.Time) (agent.Session, bool, error) {
	return agent.Session{}, false, nil
}

// ocRun runs `opencode args…` through the wrapper from the fixture's
// directory, the finder (nil: none) saying what the database holds; each
// run of the fake child is step.
func (f *fixture) ocRun(finder agent.Finder, force bool, step func(c Child) int, args ...string) (int, error) {
	return Run(Options{
		Agent: opencode.New(filepath.Join(f.home, "oc"), ""), Bin: "/usr/bin/opencode", Args: args, Root: f.root,
		Env: []string{"HOME=" + f.home, "PWD=" + f.root.Dir}, Stderr: &f.stderr, Finder: finder, Force: force,
		Log: eventlog.Open(eventlog.Options{Path: f.logPath}),
		Exec: func(c Child) (int, error) {
			f.calls = append(f.calls, c)
			return step(c), nil
		},
	})
}

func ok(Child) int { return 0 }

// A session recorded in another directory resumes there (OpenCode
// resumed elsewhere never exits), with that directory's identity root;
// the arguments pass untouched.
func TestDatabaseSessionResumesInItsDirectory(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.home, "src", "other")
	os.MkdirAll(other, 0o755)
	finder := fakeFinder{sessions: map[string]agent.Session{ocID: {ID: ocID, Cwd: other, State: agent.StateResumable}}}
	args := []string{"run", "--session", ocID, "--format", "json"}
	if code, err := f.ocRun(finder, false, ok, args...); code != 0 || err != nil {
		t.Fatal(code, err)
	}
	c := f.calls[0]
	// PWD too: OpenCode takes its directory from it.
	if c.Dir != other || !reflect.DeepEqual(c.Args, args) || !reflect.DeepEqual(envValue(c.Env, identity.EnvRoot), []string{other}) ||
		!reflect.DeepEqual(envValue(c.Env, "PWD"), []string{other}) {
		t.Errorf("child %+v", c)
	}
	if ev := f.events(); !reflect.DeepEqual(ev, []string{"resume_cwd_repair", "spawn", "end"}) || f.stderr.Len() != 0 {
		t.Errorf("events %v stderr %q", ev, f.stderr.String())
	}
	// From its own directory, nothing changes.
	f.calls = nil
	finder.sessions[ocID] = agent.Session{ID: ocID, Cwd: f.root.Path}
	f.ocRun(finder, false, ok, args...)
	if c := f.calls[0]; c.Dir != f.root.Dir || !reflect.DeepEqual(envValue(c.Env, "PWD"), []string{f.root.Dir}) {
		t.Errorf("in its directory: %+v", c)
	}
}

// An id the database does not have, or a session whose directory is
// gone, gets the one notice and a fresh start (the resume arguments
// dropped); one the database could not say anything about is run as
// asked.
func TestDatabaseSessionNotResumable(t *testing.T) {
	gone := agent.Session{ID: ocID, Cwd: "/nonexistent/proj"}
	for _, c := range []struct {
		finder agent.Finder
		reason string
	}{
		{fakeFinder{}, "session not found"},
		{fakeFinder{sessions: map[string]agent.Session{ocID: gone}}, "its directory /nonexistent/proj is gone"},
		{fakeFinder{err: errors.New("database is locked")}, ""},
	} {
		f := newFixture(t)
		code, err := f.ocRun(c.finder, false, ok, "run", "-s", ocID, "--model", "fake/m")
		if code != 0 || err != nil || len(f.calls) != 1 {
			t.Fatalf("%q: %d %v %d runs", c.reason, code, err, len(f.calls))
		}
		if c.reason == "" {
			if f.stderr.Len() != 0 || len(f.calls[0].Args) != 5 {
				t.Errorf("unknown: %q %q", f.stderr.String(), f.calls[0].Args)
			}
			continue
		}
		want := fmt.Sprintf("tether: session %s could not be resumed (%s) — starting fresh.\n", identity.ShortID(ocID), c.reason)
		if f.stderr.String() != want || !reflect.DeepEqual(f.calls[0].Args, []string{"run", "--model", "fake/m"}) {
			t.Errorf("%q: stderr %q args %q", c.reason, f.stderr.String(), f.calls[0].Args)
		}
	}
}

// Without a reader (tether-hot), OpenCode's own "Session not found" is
// recognised on the stderr the wrapper copies: one notice, then a fresh
// start; another failure is OpenCode's to report.
func TestDatabaseSessionLoadFailed(t *testing.T) {
	for _, c := range []struct {
		said  string
		fresh bool
	}{{"\x1b[91m\x1b[1mError: \x1b[0mSession not found\n", true}, {"Error: Model not found\n", false}} {
		f := newFixture(t)
		runs := 0
		code, err := f.ocRun(nil, false, func(ch Child) int {
			if runs++; runs == 1 {
				fmt.Fprint(ch.Stderr, c.said)
				return 1
			}
			return 0
		}, "-s", ocID)
		if err != nil || (len(f.calls) == 2) != c.fresh || code != map[bool]int{true: 0, false: 1}[c.fresh] {
			t.Fatalf("%q: code %d err %v runs %d", c.said, code, err, len(f.calls))
		}
		notice := strings.Contains(f.stderr.String(), "could not be resumed (the agent could not load the session) — starting fresh.")
		if notice != c.fresh || !bytes.Contains(f.stderr.Bytes(), []byte(c.said)) {
			t.Errorf("%q: stderr %q", c.said, f.stderr.String())
		}
		if c.fresh && len(f.calls[1].Args) != 0 {
			t.Errorf("fresh args %q", f.calls[1].Args)
		}
	}
}

// A session a process runs for certain is refused (--force overrides);
// one that may run is resumed.
func TestDatabaseSessionRunning(t *testing.T) {
	running := agent.Session{ID: ocID, State: agent.StateRunning, Runtime: &agent.Runtime{PID: 4242}}
	f := newFixture(t)
	running.Cwd = f.root.Path
	finder := fakeFinder{sessions: map[string]agent.Session{ocID: running}}
	_, err := f.ocRun(finder, false, ok, "-s", ocID)
	var re *RunningError
	if !errors.As(err, &re) || re.PID != 4242 || len(f.calls) != 0 {
		t.Fatalf("not refused: %v, %d runs", err, len(f.calls))
	}
	if _, err := f.ocRun(finder, true, ok, "-s", ocID); err != nil || len(f.calls) != 1 {
		t.Errorf("--force: %v, %d runs", err, len(f.calls))
	}
	running.Runtime = &agent.Runtime{PID: 4242, Status: agent.StatusPossibly}
	finder.sessions[ocID] = running
	if _, err := f.ocRun(finder, false, ok, "-s", ocID); err != nil || len(f.calls) != 2 {
		t.Errorf("possibly running: %v, %d runs", err, len(f.calls))
	}
}

// PWD follows the child's directory; a symlinked spelling of the same
// directory is left as the shell set it.
func TestWithPWD(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"PWD=/somewhere/else"}, dir},
		{[]string{"PWD=" + link}, link},
		{[]string{"HOME=/h"}, dir},
	} {
		if got := envValue(withPWD(c.env, dir), "PWD"); !reflect.DeepEqual(got, []string{c.want}) {
			t.Errorf("%q: PWD %q, want %q", c.env, got, c.want)
		}
	}
	if got := withPWD([]string{"PWD=/x"}, ""); !reflect.DeepEqual(got, []string{"PWD=/x"}) {
		t.Errorf("no directory: %q", got)
	}
}

// The short id tether prints (a unique prefix of the id's body), or a
// prefix of the whole id, resumes the one session it names; one that
// names several is refused; one that names none is "session not found".
func TestDatabaseSessionShortID(t *testing.T) {
	const twin = "ses_dcb4b0e4cffeZZZZZZZZZZZZZZ"
	f := newFixture(t)
	finder := fakeFinder{sessions: map[string]agent.Session{
		ocID: {ID: ocID, Cwd: f.root.Path}, twin: {ID: twin, Cwd: f.root.Path},
		"ses_0123456789abOtherSession00": {ID: "ses_0123456789abOtherSession00", Cwd: f.root.Path},
	}}
	for _, short := range []string{"dcb4b0e4cffem", "DCB4B0E4CFFEM", "ses_dcb4b0e4cffeMv", "--session=dcb4b0e4cffeMvX"} {
		f.calls, f.stderr = nil, bytes.Buffer{}
		args := []string{"run", "-s", short, "--format", "json"}
		want := []string{"run", "-s", ocID, "--format", "json"}
		if strings.HasPrefix(short, "--session=") {
			args, want = []string{"run", short}, []string{"run", "--session=" + ocID}
		}
		if code, err := f.ocRun(finder, false, ok, args...); code != 0 || err != nil || len(f.calls) != 1 {
			t.Fatalf("%s: %d %v, %d runs", short, code, err, len(f.calls))
		}
		if !reflect.DeepEqual(f.calls[0].Args, want) || f.stderr.Len() != 0 {
			t.Errorf("%s: args %q, stderr %q", short, f.calls[0].Args, f.stderr.String())
		}
	}
	f.calls = nil
	var amb *AmbiguousError
	if _, err := f.ocRun(finder, false, ok, "run", "-s", "dcb4b0e4"); !errors.As(err, &amb) || len(amb.Candidates) != 2 || len(f.calls) != 0 {
		t.Errorf("ambiguous: %v, %d runs", err, len(f.calls))
	}
	f.calls, f.stderr = nil, bytes.Buffer{}
	if _, err := f.ocRun(finder, false, ok, "run", "-s", "ffff0000"); err != nil || len(f.calls) != 1 ||
		!strings.Contains(f.stderr.String(), "(session not found)") {
		t.Errorf("unknown: %v, %d runs, %q", err, len(f.calls), f.stderr.String())
	}
}
