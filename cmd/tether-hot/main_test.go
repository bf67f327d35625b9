package main

import (
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/archive"
	_ "github.com/tether-dev/tether/archive/zstdcodec"
)

// TestHandsOtherCommandsToTether: what tether-hot does not answer itself
// (an OpenCode run among them) runs the tether next to it with the same
// arguments, and the exit status is that tether's.
func TestHandsOtherCommandsToTether(t *testing.T) {
	dir, hot := buildHot(t)
	fake := "#!/bin/sh\nprintf '%s|' \"$0\" \"$@\"\nexit 3\n"
	os.WriteFile(filepath.Join(dir, "tether"), []byte(fake), 0o755)
	for _, args := range [][]string{{"sessions", "list", "a b"}, {"prompt", "--help"}, {"complete", "--refresh-index"}, {"complete", "--", "tether", "ses"}, {"run", "--help"},
		// OpenCode's sessions are in a database, which tether's reader reads.
		{"run", "opencode", "-s", "ses_dcb4b0e4cffeMvX0Jl9MZ0QL8u"}, {"run", "opencode"}, {}} {
		cmd := exec.Command(hot, args...)
		cmd.Env = testutil.IsolatedEnv(dir, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_CACHE_HOME="+dir)
		out, err := cmd.Output()
		want := filepath.Join(dir, "tether") + "|" + strings.Join(args, "|")
		if len(args) > 0 {
			want += "|"
		}
		if string(out) != want {
			t.Errorf("%q: ran %q, want %q", args, out, want)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("%q: exit %v, want tether's 3", args, err)
		}
	}
}

// TestRunHandsCompressedRestoreToTether: resuming a session whose
// transcript survives only as a compressed archive copy needs the zstd
// codec, which tether-hot does not link. It hands the unchanged command
// line to tether before it starts or restores anything.
func TestRunHandsCompressedRestoreToTether(t *testing.T) {
	dir, hot := buildHot(t)
	fake := "#!/bin/sh\nprintf '%s|' \"$@\"\nexit 3\n"
	os.WriteFile(filepath.Join(dir, "tether"), []byte(fake), 0o755)
	os.WriteFile(filepath.Join(dir, "claude-real"), []byte("#!/bin/sh\necho ran claude\n"), 0o755)
	id := "0b6e1a2c-1111-4222-8333-444455556666"
	claudeDir := filepath.Join(dir, "claude")
	live := filepath.Join(claudeDir, "projects", "-home-example-p", id+".jsonl")
	os.MkdirAll(filepath.Dir(live), 0o700)
	os.WriteFile(live, []byte(`{"type":"user","cwd":"/home/example/p","sessionId":"`+id+`","message":{"role":"user","content":"hi"}}`+"\n"), 0o600)
	st := &archive.Store{Dir: filepath.Join(dir, "data", "tether", "archive"), Mode: archive.ModeCopy}
	if _, err := st.Archive(archive.Source{Harness: "claude-code", ID: id, Root: claudeDir, Path: live}); err != nil {
		t.Fatal(err)
	}
	os.Remove(live)

	args := []string{"run", "claude", "--resume", id, "-p", "go on"}
	cmd := exec.Command(hot, args...)
	// Not dir itself: dir/tether is the fake binary, and a config dir
	// that is a file would be a config error, which tether answers too.
	xdg := filepath.Join(dir, "xdg")
	cmd.Env = testutil.IsolatedEnv(dir, "XDG_CONFIG_HOME="+xdg, "XDG_STATE_HOME="+xdg, "XDG_CACHE_HOME="+xdg,
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "CLAUDE_CONFIG_DIR="+claudeDir, "TETHER_CLAUDE_BIN="+filepath.Join(dir, "claude-real"))
	out, err := cmd.Output()
	if want := strings.Join(args, "|") + "|"; string(out) != want {
		t.Errorf("ran %q, want tether with %q", out, want)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("exit %v, want tether's 3", err)
	}
	if _, err := os.Stat(live); err == nil {
		t.Error("tether-hot restored the copy itself")
	}
}

// TestConfigReadDirectly: tether-hot reads the config file itself, even
// with no working tether next to it: [log] level decides whether a tool
// event is logged, an invalid file is logged as tether reports it (and
// the defaults used), and nothing is left in the cache directory.
func TestConfigReadDirectly(t *testing.T) {
	dir, hot := buildHot(t)
	os.WriteFile(filepath.Join(dir, "tether"), []byte("#!/bin/sh\necho 'tether: not to be run' >&2\nexit 1\n"), 0o755)
	xdg := filepath.Join(dir, "xdg")
	cfgPath := filepath.Join(xdg, "config", "tether", "config.toml")
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	logPath := filepath.Join(xdg, "state", "tether", "events.jsonl")
	hook := func() string {
		t.Helper()
		runToolHook(t, hot, dir, xdg)
		b, _ := os.ReadFile(logPath)
		os.Remove(logPath)
		return string(b)
	}
	if got := hook(); strings.Contains(got, `"tool_event"`) {
		t.Errorf("no config: tool event logged at info:\n%s", got)
	}
	os.WriteFile(cfgPath, []byte("[log]\nlevel = \"debug\"\n"), 0o600)
	if got := hook(); !strings.Contains(got, `"tool_event"`) {
		t.Errorf("level debug: no tool event:\n%s", got)
	}
	os.WriteFile(cfgPath, []byte("[log]\nlevel = \"loud\"\n"), 0o600)
	if got := hook(); strings.Contains(got, `"tool_event"`) || !strings.Contains(got, `level: \"loud\" is not one of debug, info, warn, error`) {
		t.Errorf("invalid config: want its error logged and the defaults used:\n%s", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(xdg, "cache", "tether")); len(ents) > 0 {
		t.Errorf("the cache directory holds %v: the config is read, not cached", ents)
	}
}

// runToolHook runs a PostToolUse hook with HOME=dir and the XDG
// directories under xdg; a hook fails open, so it must exit 0 silently.
func runToolHook(t *testing.T, hot, dir, xdg string) {
	t.Helper()
	cmd := exec.Command(hot, "hook", "PostToolUse")
	cmd.Env = testutil.IsolatedEnv(dir, "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"),
		"XDG_CACHE_HOME="+filepath.Join(xdg, "cache"), "CLAUDE_CONFIG_DIR="+filepath.Join(dir, "claude"), "TETHER_LOG_LEVEL=")
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"` + dir + `"}`)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("hook: %v %q", err, out)
	}
}

// buildHot builds tether-hot into a new directory (skipped with -short).
func buildHot(t *testing.T) (dir, hot string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir = t.TempDir()
	hot = filepath.Join(dir, "tether-hot")
	build(t, ".", hot)
	return dir, hot
}

func build(t *testing.T, pkg, out string) {
	t.Helper()
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, b)
	}
}
