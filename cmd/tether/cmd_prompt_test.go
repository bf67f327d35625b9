package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/state"
)

// writeRootState saves a session's state for root through the hooks
// package, as the hook command does.
func writeRootState(t testing.TB, stateDir, root string, pct float64, known bool) string {
	t.Helper()
	err := state.Save(stateDir, state.Session{
		SessionID: "3f2a1b4c-0000-4000-8000-000000000001", Harness: "claude-code", IdentityRoot: root,
		Model: "claude-sonnet-4-5", Tokens: 124000, Window: 200000, Percent: pct, UsageKnown: known,
		Updated: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return state.RootPath(stateDir, root)
}

// promptApp is a test app whose identity root is a project directory.
func promptApp(t *testing.T) (*testApp, string) {
	ta := newTestApp(t)
	root := filepath.Join(ta.home, "src", "project")
	ta.env["TETHER_IDENTITY_ROOT"] = root
	return ta, root
}

func TestPromptPlain(t *testing.T) {
	ta, root := promptApp(t)
	if code := ta.run("prompt"); code != 0 || ta.out.Len() != 0 || ta.err.Len() != 0 {
		t.Fatalf("no session: code %d out %q err %q", code, ta.out, ta.err)
	}
	writeRootState(t, ta.Loc.StateDir, root, 62.4, true)
	if code := ta.run("prompt"); code != 0 || ta.out.String() != "ctx 62%\n" {
		t.Fatalf("code %d out %q err %q", code, ta.out, ta.err)
	}
	ta.out.Reset()
	ta.run("prompt", "--format", "{harness} {model} {tokens}/{window} {bar} {pct}%")
	if got := ta.out.String(); got != "claude-code claude-sonnet-4-5 124k/200k ▰▰▰▱▱ 62%\n" {
		t.Errorf("format: %q", got)
	}
}

func TestPromptColourAndThresholds(t *testing.T) {
	for _, c := range []struct {
		pct   float64
		shell string
		want  string
	}{
		{10, "zsh", "%F{green}ctx 10%%%f"},
		{62, "zsh", "%F{yellow}ctx 62%%%f"},
		{95, "zsh", "%F{red}ctx 95%%%f"},
		{62, "bash", "\x01\x1b[33m\x02ctx 62%\x01\x1b[0m\x02"},
		{62, "fish", "\x1b[33mctx 62%\x1b[0m"},
	} {
		ta, root := promptApp(t)
		writeRootState(t, ta.Loc.StateDir, root, c.pct, true)
		ta.run("prompt", "--shell", c.shell, "--stamp-id", "4242", "--color", "always")
		lines := strings.Split(ta.out.String(), "\n")
		if len(lines) != 4 || lines[0] != c.want {
			t.Errorf("%v %s: got %q, want first line %q", c.pct, c.shell, ta.out, c.want)
		}
	}
}

// TestPromptNothingOnTrouble: a corrupt or foreign state file, unknown
// usage or a broken config never print an error into the prompt.
func TestPromptNothingOnTrouble(t *testing.T) {
	ta, root := promptApp(t)
	writeRootState(t, ta.Loc.StateDir, root, 50, false)
	if ta.run("prompt"); ta.out.Len() != 0 {
		t.Errorf("unknown usage shown: %q", ta.out)
	}
	os.WriteFile(hot.RootStatePath(ta.Loc.StateDir, root), []byte("{not json"), 0o600)
	if code := ta.run("prompt"); code != 0 || ta.out.Len() != 0 || ta.err.Len() != 0 {
		t.Errorf("corrupt: code %d out %q err %q", code, ta.out, ta.err)
	}
	writeRootState(t, ta.Loc.StateDir, "/somewhere/else", 50, true)
	os.Rename(hot.RootStatePath(ta.Loc.StateDir, "/somewhere/else"), hot.RootStatePath(ta.Loc.StateDir, root))
	if ta.run("prompt"); ta.out.Len() != 0 {
		t.Errorf("another root's state shown: %q", ta.out)
	}
	writeRootState(t, ta.Loc.StateDir, root, 50, true)
	os.MkdirAll(filepath.Dir(ta.Loc.ConfigFile), 0o700)
	os.WriteFile(ta.Loc.ConfigFile, []byte("[prompt\n"), 0o600)
	if code := ta.run("prompt"); code != 0 || ta.out.String() != "ctx 50%\n" {
		t.Errorf("broken config: code %d out %q err %q", code, ta.out, ta.err)
	}
}

// TestPromptStamp: for the init scripts tether prints the segment, the
// state file and a per-shell stamp whose mtime equals the state's once the
// state is old enough to trust, and is removed when there is no state.
func TestPromptStamp(t *testing.T) {
	ta, root := promptApp(t)
	state := writeRootState(t, ta.Loc.StateDir, root, 62, true)
	old := time.Now().Add(-time.Minute).Truncate(time.Second)
	os.Chtimes(state, old, old)
	ta.run("prompt", "--shell", "bash", "--stamp-id", "4242", "--color", "never")
	lines := strings.Split(strings.TrimSuffix(ta.out.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "ctx 62%" || lines[1] != state {
		t.Fatalf("got %q", lines)
	}
	st, err := os.Stat(lines[2])
	if err != nil || !st.ModTime().Equal(old) {
		t.Fatalf("stamp %s: %v, mtime %v want %v", lines[2], err, st, old)
	}
	// A state written just now: the stamp is set apart so the shell asks
	// again at the next prompt.
	writeRootState(t, ta.Loc.StateDir, root, 70, true)
	ta.out.Reset()
	ta.run("prompt", "--shell", "bash", "--stamp-id", "4242", "--color", "never")
	sst, _ := os.Stat(state)
	st, _ = os.Stat(lines[2])
	if st.ModTime().Equal(sst.ModTime()) {
		t.Error("stamp matches a state file written this very moment")
	}
	os.Remove(state)
	ta.out.Reset()
	ta.run("prompt", "--shell", "bash", "--stamp-id", "4242")
	if _, err := os.Stat(lines[2]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stamp kept without a state file: %v", err)
	}
	if ta.out.String() != "\n"+state+"\n"+lines[2]+"\n" {
		t.Errorf("no session: %q", ta.out)
	}
	for _, bad := range [][]string{{"--shell", "bash"}, {"--shell", "tcsh", "--stamp-id", "1"}, {"--color", "sometimes"}} {
		if code := ta.run(append([]string{"prompt"}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if code := ta.run("prompt", "--shell", "bash", "--stamp-id", "../../etc/x"); code != 0 || strings.Contains(ta.out.String(), "etc") {
		t.Errorf("a path as stamp id: code %d out %q", code, ta.out)
	}
}

// TestPromptHardTimeout: a state file that blocks (here a FIFO nobody
// writes, as a hung network file system would) costs the prompt at most
// --timeout, and shows nothing.
func TestPromptHardTimeout(t *testing.T) {
	ta, root := promptApp(t)
	path := hot.RootStatePath(ta.Loc.StateDir, root)
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan int, 1)
	go func() { done <- ta.run("prompt", "--timeout", "50ms") }()
	select {
	case code := <-done:
		if code != 0 || ta.out.Len() != 0 || ta.err.Len() != 0 {
			t.Errorf("code %d out %q err %q", code, ta.out, ta.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tether prompt waited for a blocked state file")
	}
}
