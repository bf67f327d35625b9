package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
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
