package wrap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/trim"
)

// bigSession is a transcript shaped like Claude's: a prompt, a Read whose
// result is resultBytes long, and a reply whose usage says tokens are in
// use.
func bigSession(cwd string, resultBytes, tokens int) string {
	env := func(uuid, parent, typ string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`"uuid":%q,"parentUuid":%s,"type":%q,"sessionId":%q,"cwd":%q,"timestamp":"2026-11-30T10:00:00Z","isSidechain":false,"version":"2.1.332","userType":"external"`, uuid, p, typ, sid, cwd)
	}
	var b strings.Builder
	b.WriteString("{" + env("u1", "", "user") + `,"message":{"role":"user","content":"read the file"}}` + "\n")
	b.WriteString("{" + env("a1", "u1", "assistant") + `,"message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/home/example/big.txt"}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}}` + "\n")
	b.WriteString("{" + env("u2", "a1", "user") + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"` + strings.Repeat("x", resultBytes) + `"}]}}` + "\n")
	b.WriteString("{" + env("a2", "u2", "assistant") + fmt.Sprintf(`,"message":{"id":"msg_2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}}`, tokens) + "\n")
	return b.String()
}

func (f *fixture) runOpts(mod func(*Options), args ...string) (int, error) {
	o := Options{
		Agent: claude.New(f.claude), Bin: "/usr/bin/claude-real", Args: args, Root: f.root, Stderr: &f.stderr, ResetName: resetName,
		StateDir: filepath.Join(f.home, "state"), Threshold: 90, Policy: PolicyTrim, FitPercent: 60,
		Log:     eventlog.Open(eventlog.Options{Path: f.logPath}),
		Exec:    func(c Child) (int, error) { f.calls = append(f.calls, c); return 0, nil },
		FitTrim: trim.FitFile, ResetNoted: trim.ResetNoted,
	}
	mod(&o)
	return Run(o)
}

func TestPreflightRefusesRunningSession(t *testing.T) {
	f := newFixture(t)
	f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	os.MkdirAll(filepath.Join(f.claude, "sessions"), 0o700)
	os.WriteFile(filepath.Join(f.claude, "sessions", fmt.Sprint(os.Getpid())+".json"),
		[]byte(fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":%q}`, os.Getpid(), sid, f.root.Path)), 0o600)
	_, err := f.runOpts(func(*Options) {}, "--resume", sid)
	var re *RunningError
	if !errors.As(err, &re) || re.PID != os.Getpid() || len(f.calls) != 0 {
		t.Fatalf("err %v calls %d", err, len(f.calls))
	}
	if _, err := f.runOpts(func(o *Options) { o.Force = true }, "--resume", sid); err != nil || len(f.calls) != 1 {
		t.Errorf("--force: err %v calls %d", err, len(f.calls))
	}
}

func TestPreflightReset(t *testing.T) {
	f := newFixture(t)
	f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	if _, err := state.MarkReset(filepath.Join(f.home, "state"), resetName(f.root.Path), f.root.Path, sid, time.Now()); err != nil {
		t.Fatal(err)
	}
	f.runOpts(func(*Options) {}, "--resume", sid, "-p", "x")
	if len(f.calls) != 1 || strings.Join(f.calls[0].Args, " ") != "-p x" || !strings.Contains(f.stderr.String(), "(a reset was requested)") {
		t.Fatalf("calls %+v stderr %q", f.calls, f.stderr.String())
	}
	// The marker acts once.
	f.calls = nil
	f.stderr.Reset()
	f.runOpts(func(*Options) {}, "--resume", sid)
	if len(f.calls) != 1 || f.calls[0].Args[0] != "--resume" {
		t.Errorf("second resume: %+v", f.calls)
	}
}

func TestPreflightOverThreshold(t *testing.T) {
	t.Run("fresh", func(t *testing.T) {
		f := newFixture(t)
		f.writeTranscript(f.root.Path, bigSession(f.root.Path, 1000, 190000))
		f.runOpts(func(o *Options) { o.Policy = PolicyFresh }, "--resume", sid)
		if len(f.calls) != 1 || len(f.calls[0].Args) != 0 || !strings.Contains(f.stderr.String(), "(context at 95% of 200k tokens)") {
			t.Fatalf("calls %+v stderr %q", f.calls, f.stderr.String())
		}
	})
	t.Run("trim", func(t *testing.T) {
		f := newFixture(t)
		p := f.writeTranscript(f.root.Path, bigSession(f.root.Path, 1<<20, 190000))
		f.runOpts(func(*Options) {}, "--resume", sid)
		if len(f.calls) != 1 || f.calls[0].Args[0] != "--resume" {
			t.Fatalf("calls %+v", f.calls)
		}
		if !strings.Contains(f.stderr.String(), "was at 95% of its context — trimmed to about") {
			t.Errorf("stderr %q", f.stderr.String())
		}
		st, _ := os.Stat(p)
		if st.Size() > 100<<10 {
			t.Errorf("transcript still %d bytes", st.Size())
		}
		if _, err := os.Stat(trim.BackupPath(p)); err != nil {
			t.Errorf("no backup: %v", err)
		}
		f2, _ := os.Open(p)
		defer f2.Close()
		if err := trim.Validate(f2); err != nil {
			t.Errorf("trimmed transcript invalid: %v", err)
		}
	})
	// TETHER_DISABLE_TRIM, or a caller that passes no trimmer: the session
	// is resumed as is and the skip logged, never a half-done trim.
	for name, off := range map[string]func(*Options){
		"disabled":   func(o *Options) { o.DisableTrim = true },
		"no trimmer": func(o *Options) { o.FitTrim = nil },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			p := f.writeTranscript(f.root.Path, bigSession(f.root.Path, 1<<20, 190000))
			before, _ := os.ReadFile(p)
			f.runOpts(off, "--resume", sid)
			after, _ := os.ReadFile(p)
			if string(before) != string(after) || len(f.calls) != 1 || f.calls[0].Args[0] != "--resume" || f.stderr.Len() != 0 {
				t.Errorf("file changed=%v calls %+v stderr=%q", string(before) != string(after), f.calls, f.stderr.String())
			}
			if evs := strings.Join(f.events(), " "); !strings.Contains(evs, eventlog.TrimSkipped) {
				t.Errorf("events %s, want %s", evs, eventlog.TrimSkipped)
			}
		})
	}
	t.Run("under", func(t *testing.T) {
		f := newFixture(t)
		p := f.writeTranscript(f.root.Path, bigSession(f.root.Path, 1<<20, 100000))
		before, _ := os.ReadFile(p)
		f.runOpts(func(*Options) {}, "--resume", sid)
		after, _ := os.ReadFile(p)
		if string(before) != string(after) || f.stderr.Len() != 0 {
			t.Errorf("under the threshold the session was touched: stderr %q", f.stderr.String())
		}
	})
}

// Issue 13.1: a 2.0.x process holding the transcript is running it: the
// resume is refused as with a pid file.
func TestPreflightRefusesLiveSessionWithoutPidFile(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	pid := testutil.StartFakeClaude(t, t.TempDir(), f.claude, fh)
	_, err = f.runOpts(func(*Options) {}, "--resume", sid)
	var re *RunningError
	if !errors.As(err, &re) || re.PID != pid || len(f.calls) != 0 {
		t.Fatalf("err %v calls %d (want the process %d)", err, len(f.calls), pid)
	}
}

// Issue 13.1: a session that may be running (a 2.0.x process in its
// project, a recent write) is not trimmed before the resume.
func TestPreflightDoesNotTrimPossiblyLiveSession(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, bigSession(f.root.Path, 1<<20, 190000))
	before, _ := os.ReadFile(p)
	pid := testutil.StartFakeClaude(t, f.root.Path, f.claude)
	f.runOpts(func(*Options) {}, "--resume", sid)
	after, _ := os.ReadFile(p)
	if string(before) != string(after) {
		t.Fatal("a possibly live session was trimmed")
	}
	if len(f.calls) != 1 || !strings.Contains(f.stderr.String(), "may be running") || !strings.Contains(f.stderr.String(), fmt.Sprint(pid)) {
		t.Errorf("calls %d stderr %q", len(f.calls), f.stderr.String())
	}
	skipped := 0
	if _, err := eventlog.ReadAll(f.logPath, func(r eventlog.Record) {
		if err := eventlog.Check(r); err != nil {
			t.Error(err)
		}
		if r.Event == eventlog.TrimSkipped {
			skipped++
		}
	}); err != nil || skipped != 1 {
		t.Errorf("trim_skipped logged %d times (%v)", skipped, err)
	}
}

// TestPreflightResetNote: a RESET: TRUE in the project's notes starts a
// fresh session in place of the resume, through the notes reader the
// caller passes in.
func TestPreflightResetNote(t *testing.T) {
	for _, noted := range []bool{false, true} {
		f := newFixture(t)
		f.writeTranscript(f.root.Path, userRecord(f.root.Path))
		if noted {
			dir := filepath.Join(f.root.Path, ".tether")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("- RESET: TRUE\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f.runOpts(func(*Options) {}, "--resume", sid)
		resumed := len(f.calls) == 1 && len(f.calls[0].Args) == 2 && f.calls[0].Args[0] == "--resume"
		if resumed == noted || (noted && !strings.Contains(f.stderr.String(), "a reset was requested")) {
			t.Errorf("RESET noted=%v: calls %+v stderr %q", noted, f.calls, f.stderr.String())
		}
	}
}
