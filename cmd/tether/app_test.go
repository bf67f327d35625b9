package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/state"
)

type testApp struct {
	*App
	home     string
	out, err *bytes.Buffer
	env      map[string]string
}

// newTestApp returns an App whose every location is under a temporary
// HOME; nothing touches the real ~/.claude or ~/.codex.
func newTestApp(t *testing.T) *testApp {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"HOME":              home,
		"CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"),
		"CODEX_HOME":        filepath.Join(home, ".codex"),
		"XDG_STATE_HOME":    filepath.Join(home, "state"),
		"XDG_CONFIG_HOME":   filepath.Join(home, "config"),
		"XDG_CACHE_HOME":    filepath.Join(home, "cache"),
		// The default under HOME, set so that a program tether starts
		// (a summary provider) gets it instead of the test's own.
		"XDG_DATA_HOME": filepath.Join(home, ".local", "share"),
	}
	ios, _, out, errOut := iostreams.Test()
	getenv := func(k string) string { return env[k] }
	a := &App{Deps: &hot.Deps{IO: ios, Getenv: getenv, Now: time.Now, Loc: locations.FromEnv(getenv)}, Version: "1.2.3-test"}
	return &testApp{App: a, home: home, out: out, err: errOut, env: env}
}

func (ta *testApp) run(args ...string) int {
	return ta.Run(context.Background(), append([]string{"tether"}, args...))
}

func TestVersionAndHelp(t *testing.T) {
	ta := newTestApp(t)
	if code := ta.run("--version"); code != 0 || !strings.Contains(ta.out.String(), "1.2.3-test") {
		t.Errorf("--version: code %d out %q", code, ta.out)
	}
	ta.out.Reset()
	if code := ta.run("--help"); code != 0 {
		t.Errorf("--help: code %d", code)
	}
	for _, want := range []string{"identity", "log", "doctor"} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"--bogus"}, {"nosuchcommand"}, {"identity", "a", "b"}, {"log", "--since", "soon"}, {"identity", "--nope"}} {
		ta := newTestApp(t)
		code := ta.run(args...)
		msg := ta.err.String()
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if !strings.HasPrefix(msg, "tether: ") || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: want one 'tether:' line on stderr, got %q", args, msg)
		}
		if ta.out.Len() != 0 {
			t.Errorf("%v: stdout should be empty, got %q", args, ta.out)
		}
	}
}

func TestIdentityJSON(t *testing.T) {
	ta := newTestApp(t)
	real := filepath.Join(ta.home, "src", "my project")
	os.MkdirAll(real, 0o755)
	link := filepath.Join(ta.home, "link")
	os.Symlink(real, link)
	// A session started through the symlink, stranded in its own project
	// directory.
	linkName, _ := claude.ProjectDirName(link)
	pd := filepath.Join(ta.home, ".claude", "projects", linkName)
	os.MkdirAll(pd, 0o700)
	os.WriteFile(filepath.Join(pd, "s1.jsonl"), []byte(`{"type":"user","cwd":"`+link+`","uuid":"u"}`+"\n"), 0o600)

	if code := ta.run("identity", "--json", link+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	var rep struct {
		Raw        string `json:"raw"`
		Root       string `json:"root"`
		FellBack   bool   `json:"fellBack"`
		ProjectDir struct {
			Name   string `json:"name"`
			Exists bool   `json:"exists"`
		} `json:"projectDir"`
		Other []struct {
			Name     string `json:"name"`
			Match    string `json:"match"`
			Sessions int    `json:"sessions"`
		} `json:"otherProjectDirs"`
	}
	if err := json.Unmarshal(ta.out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, ta.out)
	}
	wantName, _ := claude.ProjectDirName(real)
	if rep.Raw != link+"/" || rep.Root != real || rep.FellBack || rep.ProjectDir.Name != wantName || rep.ProjectDir.Exists {
		t.Errorf("report: %+v", rep)
	}
	if len(rep.Other) != 1 || rep.Other[0].Name != linkName || rep.Other[0].Sessions != 1 {
		t.Errorf("stranded: %+v", rep.Other)
	}

	// The human view says the same.
	ta.out.Reset()
	if code := ta.run("identity", link); code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"root:         " + real, linkName, "1 session"} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("human view lacks %q:\n%s", want, ta.out)
		}
	}
}

func TestIdentityPinnedAndFallback(t *testing.T) {
	ta := newTestApp(t)
	ta.env["TETHER_IDENTITY_ROOT"] = "/home/example/src/project"
	if code := ta.run("identity", "--json"); code != 0 {
		t.Fatal(code)
	}
	if !strings.Contains(ta.out.String(), `"pinned": true`) || !strings.Contains(ta.out.String(), `"root": "/home/example/src/project"`) {
		t.Errorf("pinned: %s", ta.out)
	}
	ta.out.Reset()
	if code := ta.run("identity", "/home/example/nope/../src/"); code != 0 {
		t.Fatal(code)
	}
	if !strings.Contains(ta.out.String(), "fell back") || !strings.Contains(ta.out.String(), "/home/example/src\n") {
		t.Errorf("fallback: %s", ta.out)
	}
}

func TestMalformedConfigIsOneLineError(t *testing.T) {
	ta := newTestApp(t)
	cfg := filepath.Join(ta.home, "config", "tether", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte("# tether\n[log]\nlevel = = \"debug\"\n"), 0o600)
	code := ta.run("identity", ta.home)
	if code != 1 || !strings.Contains(ta.err.String(), cfg) || !strings.Contains(ta.err.String(), "line 3") || strings.Count(ta.err.String(), "\n") != 1 {
		t.Errorf("exit %d stderr %q", code, ta.err)
	}
}

func TestLogCommandFilters(t *testing.T) {
	ta := newTestApp(t)
	l := ta.Log()
	l.Info("spawn", "session_01HXYZabcdef", slog.String("cwd", "/home/example/src/project"))
	l.Warn("resume_failure", "d9f7843f-07d6-4b50-9048-40676f77f965", slog.String("error", "prompt too long"))
	l.Info("context_usage", "d9f7843f-07d6-4b50-9048-40676f77f965", slog.Int("tokens", 1234))

	if code := ta.run("log", "--json", "--session", "cse_01HXYZabcdef"); code != 0 {
		t.Fatal(ta.err)
	}
	if n := strings.Count(ta.out.String(), "\n"); n != 1 || !strings.Contains(ta.out.String(), `"event":"spawn"`) {
		t.Errorf("by session body: %q", ta.out)
	}
	ta.out.Reset()
	if code := ta.run("log", "--session", "d9f7", "--event", "context_usage"); code != 0 {
		t.Fatal(ta.err)
	}
	if !strings.Contains(ta.out.String(), "context_usage") || !strings.Contains(ta.out.String(), "tokens=1234") || strings.Contains(ta.out.String(), "resume_failure") {
		t.Errorf("table: %q", ta.out)
	}
	ta.out.Reset()
	ta.App.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	ta.run("log", "--since", "1h", "--json")
	if ta.out.Len() != 0 {
		t.Errorf("--since 1h two hours later: %q", ta.out)
	}
}

func TestLogFollow(t *testing.T) {
	ta := newTestApp(t)
	ta.Log().Info("first", "s1")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	out := &syncBuffer{}
	go func() {
		done <- runLog(ctx, logOptions{IO: &iostreams.IOStreams{Out: out, ErrOut: out}, Path: state.EventLogPath(ta.Loc.StateDir), JSON: true, Follow: true, Now: time.Now, Poll: 5 * time.Millisecond})
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), `"first"`) })
	ta.Log().Info("second", "s2")
	waitFor(t, func() bool { return strings.Contains(out.String(), `"second"`) })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), `"first"`) != 1 {
		t.Errorf("record delivered twice: %s", out)
	}
}

func TestDoctorUnwritableStateDir(t *testing.T) {
	ta := newTestApp(t)
	// A file where the state directory should be: unwritable for everyone,
	// root included.
	os.WriteFile(filepath.Join(ta.home, "state"), nil, 0o600)
	ta.Loc = locations.FromEnv(ta.Getenv)
	code := ta.run("doctor")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(ta.out.String(), "fail  state dir") {
		t.Errorf("doctor output:\n%s", ta.out)
	}
	if strings.Count(ta.err.String(), "\n") != 1 {
		t.Errorf("stderr: %q", ta.err)
	}
	// A command that does not need the log still works.
	ta.out.Reset()
	ta.Log().Info("spawn", "x")
	if code := ta.run("identity", ta.home); code != 0 {
		t.Errorf("identity with an unwritable state dir: exit %d", code)
	}
}

func TestParseDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{"90m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, "1.5d": 36 * time.Hour} {
		if got, err := parseDuration(s); err != nil || got != want {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	for _, s := range []string{"", "x", "-1h", "-2d", "d"} {
		if _, err := parseDuration(s); err == nil {
			t.Errorf("%q: want error", s)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestLogFollowTailAndAlignment: --follow starts from the last 10 records
// like tail -f (all of them since --since), and lines printed later line up
// with the first ones.
func TestLogFollowTailAndAlignment(t *testing.T) {
	ta := newTestApp(t)
	for i := range 15 {
		ta.Log().Info(fmt.Sprintf("ev%02d", i), "s1")
	}
	// then writes a record and returns what to wait for in the output.
	follow := func(since time.Duration, then func() string) string {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		out := &syncBuffer{}
		go func() {
			done <- runLog(ctx, logOptions{IO: &iostreams.IOStreams{Out: out, ErrOut: out}, Path: state.EventLogPath(ta.Loc.StateDir), Follow: true, Since: since, Now: time.Now, Poll: 5 * time.Millisecond})
		}()
		waitFor(t, func() bool { return strings.Contains(out.String(), "ev14") })
		if then != nil {
			want := then()
			waitFor(t, func() bool { return strings.Contains(out.String(), want) })
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	aligned := func(out string) {
		t.Helper()
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		col := strings.Index(lines[0], "SESSION")
		for _, l := range lines[1:] {
			if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
				t.Errorf("misaligned (SESSION at %d):\n%s", col, out)
				return
			}
		}
	}
	out := follow(0, func() string {
		ta.Log().Warn("context_window_exceeded", "d9f7843f-07d6-4b50-9048-40676f77f965", slog.String("k", "v"))
		return "k=v"
	})
	if strings.Contains(out, "ev04") || !strings.Contains(out, "ev05") || !strings.Contains(out, "context_window_exceeded") {
		t.Errorf("want the last 10 records then the new one:\n%s", out)
	}
	aligned(out)
	out = follow(0, func() string {
		ta.Log().Info("late", "s2")
		return "late"
	})
	if !strings.Contains(out, "late") {
		t.Errorf("followed record missing:\n%s", out)
	}
	aligned(out)
	if out := follow(time.Hour, nil); !strings.Contains(out, "ev00") {
		t.Errorf("--since with --follow: want every record since:\n%s", out)
	}
}
