package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/shellinit"
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

func TestInitCommand(t *testing.T) {
	ta := newTestApp(t)
	if code := ta.run("init", "zsh", "--no-wrap", "--cmd", "tether"); code != 0 {
		t.Fatalf("code %d err %q", code, ta.err)
	}
	out := ta.out.String()
	if !strings.Contains(out, "__tether_bin='tether'") || strings.Contains(out, "function claude") ||
		!strings.HasSuffix(out, "eval \"$(tether init zsh --no-wrap)\"\n") {
		t.Errorf("unexpected script:\n%s", out)
	}
	for _, bad := range [][]string{{"init"}, {"init", "tcsh"}, {"init", "bash", "zsh"}} {
		if code := ta.run(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// completeApp has an index of two Claude sessions (one here, one
// elsewhere) and one Codex session.
func completeApp(t *testing.T) (*testApp, string) {
	ta, root := promptApp(t)
	now := time.Now()
	err := shellinit.WriteIndex(shellinit.IndexPath(ta.Loc.CacheDir), []shellinit.IndexEntry{
		{Harness: "codex", ID: "0199aaaa-codex", LastActivity: now.Add(-time.Minute), Root: root, Title: "codex work"},
		{Harness: "claude-code", ID: "bbbb-elsewhere", LastActivity: now.Add(-2 * time.Minute), Root: "/home/example/src/other", Title: "other\tproject"},
		{Harness: "claude-code", ID: "aaaa-here", LastActivity: now.Add(-3 * time.Hour), Root: root, Title: "fix: the login bug"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ta.Now = func() time.Time { return now }
	return ta, root
}

func completeOut(t *testing.T, ta *testApp, args ...string) (string, int) {
	t.Helper()
	ta.out.Reset()
	ta.err.Reset()
	code := ta.run(append([]string{"complete"}, args...)...)
	return ta.out.String(), code
}

func TestCompleteSessionIDs(t *testing.T) {
	ta, _ := completeApp(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		// Claude ids only (claude cannot resume a Codex thread), this
		// directory's first.
		{[]string{"--shell", "bash", "--", "claude", "--resume", ""}, "aaaa-here\nbbbb-elsewhere\n"},
		{[]string{"--shell", "bash", "--line", "claude -r "}, "aaaa-here\nbbbb-elsewhere\n"},
		{[]string{"--shell", "bash", "--", "claude", "-r", "b"}, "bbbb-elsewhere\n"},
		{[]string{"--shell", "bash", "--", "codex", "resume", ""}, "0199aaaa-codex\n"},
		{[]string{"--shell", "zsh", "--", "claude", "--resume", "a"},
			"aaaa-here:3h ago · fix: the login bug\n"},
		{[]string{"--shell", "fish", "--", "codex", "resume", ""}, "0199aaaa-codex\t1m ago · codex work\n"},
		{[]string{"--shell", "bash", "--", "claude", "--resume=aa"}, "aaaa-here\n"},
		{[]string{"--shell", "fish", "--", "claude", "--resume=aa"}, "--resume=aaaa-here\t3h ago · fix: the login bug\n"},
		{[]string{"--shell", "bash", "--", "tether", "log", "--session", "0"}, "0199aaaa-codex\n"},
		{[]string{"--shell", "zsh", "--", "tether", "log", "--session=bb"}, "bbbb-elsewhere:claude-code · 2m ago · other project (other)\n"},
	} {
		out, code := completeOut(t, ta, c.args...)
		if code != 0 || out != c.want {
			t.Errorf("%q: code %d\n got %q\nwant %q", c.args, code, out, c.want)
		}
	}
}

// TestCompleteFallsBack: where tether has nothing to say it exits 1 with no
// output, and the shell's own completion takes over.
func TestCompleteFallsBack(t *testing.T) {
	ta, _ := completeApp(t)
	for _, args := range [][]string{
		{"--", "claude", ""},
		{"--", "claude", "--model", ""},
		{"--", "codex", "exec", ""},
		{"--", "tether", "identity", ""},
		{"--", "tether", "log", "--since", ""},
		{},
	} {
		out, code := completeOut(t, ta, args...)
		if code != 1 || out != "" || ta.err.Len() != 0 {
			t.Errorf("%q: code %d out %q err %q", args, code, out, ta.err)
		}
	}
}

// TestCompleteCommandTree: commands and flags come from the command tree,
// hidden commands stay hidden.
func TestCompleteCommandTree(t *testing.T) {
	ta, _ := completeApp(t)
	out, _ := completeOut(t, ta, "--shell", "bash", "--", "tether", "")
	got := strings.Fields(out)
	for _, c := range ta.Command().Commands {
		if c.Hidden != !containsStr(got, c.Name) {
			t.Errorf("command %s (hidden %v) offered: %v", c.Name, c.Hidden, got)
		}
	}
	out, _ = completeOut(t, ta, "--shell", "zsh", "--", "tether", "init", "--no-")
	want := "--no-wrap:do not define the claude and codex wrapper functions\n" +
		"--no-prompt:do not set up the prompt segment\n--no-completion:do not set up completion\n"
	if out != want {
		t.Errorf("init flags: %q", out)
	}
	out, _ = completeOut(t, ta, "--shell", "bash", "--", "tether", "--v")
	if out != "--version\n" {
		t.Errorf("root flags: %q", out)
	}
	out, _ = completeOut(t, ta, "--shell", "bash", "--line", "tether log --since 1d --j")
	if out != "--json\n" {
		t.Errorf("after a flag value: %q", out)
	}
	// A flag with a fixed set of values offers them, in either spelling.
	for line, want := range map[string]string{
		"tether sessions --harness ":       "claude-code\ncodex\n",
		"tether sessions list --harness c": "claude-code\ncodex\n",
		"tether sessions --harness=co":     "codex\n",
		"tether sessions --state ":         "running\nresumable\nstale\nunknown\narchived\n",
		"tether hooks install --scope ":    "user\nproject\nlocal\n",
	} {
		out, code := completeOut(t, ta, "--shell", "bash", "--line", line)
		if code != 0 || out != want {
			t.Errorf("%q: code %d got %q, want %q", line, code, out, want)
		}
	}
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestCompleteRefreshesStaleOrMissingIndex(t *testing.T) {
	ta, _ := promptApp(t)
	ran := 0
	ta.indexSource = func(context.Context) ([]shellinit.IndexEntry, error) {
		ran++
		return []shellinit.IndexEntry{{Harness: "claude-code", ID: "fresh-id", LastActivity: time.Now(), Title: "t"}}, nil
	}
	spawned := 0
	opts := hot.CompleteOptions{
		Out: ta.out, Shell: "bash", Words: []string{"claude", "-r", ""},
		IndexPath: shellinit.IndexPath(ta.Loc.CacheDir), Now: time.Now(), Refresh: func() { spawned++ },
	}
	if err := runComplete(ta.Command(), opts); err != nil || ta.out.Len() != 0 || spawned != 1 {
		t.Fatalf("missing index: err %v out %q spawned %d", err, ta.out, spawned)
	}
	if code := ta.run("complete", "--refresh-index"); code != 0 || ran != 1 {
		t.Fatalf("refresh: code %d ran %d err %q", code, ran, ta.err)
	}
	if err := runComplete(ta.Command(), opts); err != nil || ta.out.String() != "fresh-id\n" || spawned != 1 {
		t.Fatalf("fresh index: err %v out %q spawned %d", err, ta.out, spawned)
	}
	ta.out.Reset()
	opts.Now = time.Now().Add(time.Hour)
	if err := runComplete(ta.Command(), opts); err != nil || ta.out.String() != "fresh-id\n" || spawned != 2 {
		t.Fatalf("stale index answers and refreshes: err %v out %q spawned %d", err, ta.out, spawned)
	}
	// A refresh already running (fresh lock) is not doubled.
	os.WriteFile(shellinit.IndexPath(ta.Loc.CacheDir)+".lock", nil, 0o600)
	if code := ta.run("complete", "--refresh-index"); code != 0 || ran != 1 {
		t.Errorf("refresh under a live lock ran: %d", ran)
	}
	st, _ := os.Stat(shellinit.IndexPath(ta.Loc.CacheDir))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("index mode %v, want 0600 (titles come from prompts)", st.Mode().Perm())
	}
}

func TestSplitLine(t *testing.T) {
	for line, want := range map[string][]string{
		"":                      {""},
		"claude -r ":            {"claude", "-r", ""},
		"claude -r ab":          {"claude", "-r", "ab"},
		`tether log "a b" 'c d`: {"tether", "log", "a b", "c d"},
		`x a\ b`:                {"x", "a b"},
	} {
		if got := hot.SplitLine(line); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, want %q", line, got, want)
		}
	}
}

func TestDoctorShellChecks(t *testing.T) {
	ta := newTestApp(t)
	self, _ := os.Executable()
	run := func(env map[string]string, lookPath func(string) (string, error), fix bool) string {
		ta.out.Reset()
		runDoctor(doctorOptions{
			IO: ta.IO, Loc: ta.Loc, Root: ta.Root(), LoadConf: ta.Config,
			Executable: func() (string, error) { return self, nil }, LookPath: lookPath, Fix: fix,
			Shell: shellEnv{
				Getenv: func(k string) string { return env[k] }, PPID: 4242, Now: time.Now(),
				RefreshIndex: func() error { return ta.refreshCompletionIndex(context.Background()) },
			},
		})
		return ta.out.String()
	}
	realClaude := func(p string) (string, error) {
		if p == "claude" {
			return "/usr/local/bin/claude", nil
		}
		return "", os.ErrNotExist
	}
	out := run(map[string]string{"SHELL": "/usr/bin/zsh"}, realClaude, false)
	for _, want := range []string{
		`warn  shell init not loaded in this shell — add eval "$(tether init zsh)" to ~/.zshrc`,
		"warn  claude     /usr/local/bin/claude runs without tether's wrapper",
		"ok    codex      not installed",
		"warn  completion no session index",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	loaded := map[string]string{"TETHER_SHELL": "fish", "TETHER_SHELL_PID": "4242", "TETHER_SHELL_FEATURES": "wrap,prompt,completion"}
	out = run(loaded, realClaude, false)
	for _, want := range []string{"ok    shell init fish (wrap,prompt,completion)", "ok    claude     a shell function running 'tether run claude'"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	loaded["TETHER_SHELL_PID"] = "1"
	if out = run(loaded, realClaude, false); !strings.Contains(out, "warn  shell init fish integration inherited from another process (pid 1)") ||
		!strings.Contains(out, "warn  claude") {
		t.Errorf("inherited:\n%s", out)
	}
	// The shim: claude on PATH is this binary.
	out = run(nil, func(string) (string, error) { return self, nil }, false)
	if !strings.Contains(out, "ok    claude     "+self+" is tether's shim") {
		t.Errorf("shim:\n%s", out)
	}
	// --fix builds the completion index.
	ta.indexSource = func(context.Context) ([]shellinit.IndexEntry, error) {
		return []shellinit.IndexEntry{{Harness: "codex", ID: "x", LastActivity: time.Now()}}, nil
	}
	out = run(nil, realClaude, true)
	if !strings.Contains(out, "ok    completion no session index") || !strings.Contains(out, "fixed completion") {
		t.Errorf("--fix:\n%s", out)
	}
	if _, err := os.Stat(shellinit.IndexPath(ta.Loc.CacheDir)); err != nil {
		t.Errorf("--fix built no index: %v", err)
	}
}

// TestDoctorHooks: doctor finds tether's hooks and statusLine, fails when
// they run a binary that is gone, and --fix installs them again.
func TestDoctorHooks(t *testing.T) {
	ta := newTestApp(t)
	ta.run("doctor")
	if out := ta.out.String(); !strings.Contains(out, "warn  hooks      not installed") || !strings.Contains(out, "warn  statusLine not set") {
		t.Fatalf("no hooks:\n%s", out)
	}
	// Hook commands run the tether on PATH: this test binary, named tether.
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	exe, _ := os.Executable()
	self := filepath.Join(bin, "tether")
	if err := os.Symlink(exe, self); err != nil {
		t.Fatal(err)
	}
	ta.env["PATH"] = bin
	if code := ta.run("hooks", "install", "--claude-version", "2.1.332", "--statusline"); code != 0 {
		t.Fatalf("hooks install: %s", ta.err)
	}
	settings := filepath.Join(ta.Loc.ClaudeDir, "settings.json")
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), shquote.Quote(self)+" hook") {
		t.Fatalf("hook commands do not run %s:\n%s", self, data)
	}
	// The binary moves: the installed commands now name one that is gone
	// (tether recognises them by the record of what it installed).
	gone := self
	bin2 := filepath.Join(ta.home, "bin2")
	os.MkdirAll(bin2, 0o755)
	self = filepath.Join(bin2, "tether")
	if err := os.Rename(gone, self); err != nil {
		t.Fatal(err)
	}
	ta.env["PATH"] = bin2
	ta.out.Reset()
	if code := ta.run("doctor"); code != 1 {
		t.Errorf("doctor with hooks running a missing binary: exit %d", code)
	}
	out := ta.out.String()
	if !strings.Contains(out, "fail  hooks      "+settings+" runs "+gone+", which does not exist") ||
		!strings.Contains(out, "fail  statusLine "+shquote.Quote(gone)+" statusline") {
		t.Errorf("missing binary:\n%s", out)
	}
	ta.out.Reset()
	ta.run("doctor", "--fix")
	ta.out.Reset()
	ta.run("doctor")
	if out := ta.out.String(); !strings.Contains(out, "ok    hooks      ") || !strings.Contains(out, "running "+self) ||
		!strings.Contains(out, "ok    statusLine "+shquote.Quote(self)+" statusline") {
		t.Errorf("after --fix:\n%s", out)
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
