package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/trim"
)

// seedSession copies the real 2.1.332 sample into the temp config root
// under id, with its cwd rewritten to dir. It returns the transcript path.
func seedSession(t *testing.T, ta *testApp, id, dir string) string {
	t.Helper()
	data, err := os.ReadFile(testutil.Testdata(t, "claude-code-2.1.332", "sample-tool-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(data), "/home/example/src/proj", dir)
	s = strings.ReplaceAll(s, "d9f7843f-07d6-4b50-9048-40676f77f965", id)
	name, _ := claude.ProjectDirName(dir)
	pd := filepath.Join(ta.home, ".claude", "projects", name)
	os.MkdirAll(pd, 0o700)
	path := filepath.Join(pd, id+".jsonl")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTrimCommand(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "src", "proj")
	os.MkdirAll(dir, 0o755)
	id := "d9f7843f-07d6-4b50-9048-40676f77f965"
	path := seedSession(t, ta, id, dir)
	orig, _ := os.ReadFile(path)

	// Without kept paths or a budget there is nothing to do: usage error.
	if code := ta.run("trim", "d9f7"); code != 2 || !strings.Contains(ta.err.String(), "nothing to keep") {
		t.Fatalf("no policy: exit %d %q", code, ta.err)
	}
	// The default notes file in the session's directory supplies KEEP.
	os.MkdirAll(filepath.Join(dir, ".tether"), 0o755)
	os.WriteFile(filepath.Join(dir, ".tether", "notes.md"), []byte("# notes\nKEEP: docs, `src/a.go`\nRESET: TRUE\n"), 0o644)
	ta.out.Reset()
	ta.err.Reset()
	if code := ta.run("trim", "--dry-run", "--json", "d9f7"); code != 0 {
		t.Fatalf("dry run: exit %d %s", code, ta.err)
	}
	var rep struct {
		trim.Report
		Session string   `json:"session"`
		Keep    []string `json:"keepPaths"`
		Reset   bool     `json:"resetRequested"`
	}
	if err := json.Unmarshal(ta.out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, ta.out)
	}
	if rep.Session != id || !rep.DryRun || !rep.Changed || !rep.Reset || len(rep.Keep) != 2 || rep.Keep[0] != filepath.Join(dir, "docs") {
		t.Errorf("dry run report: %+v", rep)
	}
	if now, _ := os.ReadFile(path); string(now) != string(orig) {
		t.Fatal("dry run wrote")
	}

	// A running session is refused with exit 4, unless --force.
	sessions := filepath.Join(ta.home, ".claude", "sessions")
	os.MkdirAll(sessions, 0o700)
	live := filepath.Join(sessions, fmt.Sprintf("%d.json", os.Getpid()))
	os.WriteFile(live, []byte(fmt.Sprintf(`{"pid":%d,"sessionId":%q,"status":"busy"}`, os.Getpid(), id)), 0o600)
	ta.err.Reset()
	if code := ta.run("trim", "--keep", "docs", id); code != 4 || !strings.Contains(ta.err.String(), "is running") {
		t.Fatalf("running: exit %d %q", code, ta.err)
	}
	// A stale file (dead pid) does not count.
	os.Remove(live)
	os.WriteFile(filepath.Join(sessions, "999999999.json"), []byte(fmt.Sprintf(`{"pid":999999999,"sessionId":%q}`, id)), 0o600)

	// Another trim holding the lock: refused, exit 4.
	unlock, err := trim.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	ta.err.Reset()
	if code := ta.run("trim", "--keep", "docs", id); code != 4 || !strings.Contains(ta.err.String(), "another tether trim") {
		t.Fatalf("locked: exit %d %q", code, ta.err)
	}
	unlock()

	ta.out.Reset()
	if code := ta.run("trim", "--keep", "docs", path); code != 0 {
		t.Fatalf("trim by path: exit %d %s", code, ta.err)
	}
	for _, want := range []string{"trimmed " + path, "backup:  " + path + ".bak", "tool_use", "KIND"} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, ta.out)
		}
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != string(orig) {
		t.Error("backup is not the original")
	}
	if err := trim.Validate(mustOpen(t, path)); err != nil {
		t.Error(err)
	}
	// The lifecycle log records metadata only.
	logData, _ := os.ReadFile(state.EventLogPath(ta.Loc.StateDir))
	if !strings.Contains(string(logData), `"event":"trim"`) || strings.Contains(string(logData), "TOOL_BASH") {
		t.Errorf("log: %s", logData)
	}

	ta.out.Reset()
	if code := ta.run("trim", "--restore", id); code != 0 {
		t.Fatalf("restore: exit %d %s", code, ta.err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(orig) {
		t.Error("restore did not bring the original back")
	}
	// A second restore has nothing to do and keeps no identical copy.
	ta.out.Reset()
	if code := ta.run("trim", "--restore", id); code != 0 || !strings.Contains(ta.out.String(), "already matches its backup") {
		t.Fatalf("second restore: exit %d %q %s", code, ta.out, ta.err)
	}
	if _, err := os.Stat(path + ".pre-restore.1"); err == nil {
		t.Error("second restore kept an identical .pre-restore.1")
	}
	if _, err := os.Stat(path + ".lock"); err == nil {
		t.Error("a lock file stayed in projects/")
	}

	// --reset writes the marker the wrapper takes.
	ta.out.Reset()
	if code := ta.run("trim", "--reset", id); code != 0 {
		t.Fatalf("reset: exit %d %s", code, ta.err)
	}
	root := identity.Resolve(dir).Path
	if ok, err := state.TakeReset(ta.Loc.StateDir, hot.ResetName(root)); !ok || err != nil {
		t.Errorf("reset marker not found for %s: %v", root, err)
	}
	if ok, _ := state.TakeReset(ta.Loc.StateDir, hot.ResetName(root)); ok {
		t.Error("reset marker acted twice")
	}
}

func mustOpen(t *testing.T, p string) *os.File {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestTrimResolveAndUsage(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "src", "proj")
	seedSession(t, ta, "abcd1111-0000-4000-8000-000000000001", dir)
	seedSession(t, ta, "abcd2222-0000-4000-8000-000000000002", dir)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"trim", "--fit", "50%", "abcd"}, 2, "ambiguous; it matches 2 sessions: claude-code:abcd1111-0000-4000-8000-000000000001"},
		{[]string{"trim", "--fit", "50%", "abc"}, 2, "too short"},
		{[]string{"trim", "--fit", "50%", "ffff"}, 3, "no such session: \"ffff\""},
		{[]string{"trim", "--fit", "50%", "/nope/x.jsonl"}, 3, "/nope/x.jsonl"},
		{[]string{"trim", "--fit", "lots", "abcd1"}, 2, "--fit"},
		{[]string{"trim", "--fit", "150%", "abcd1"}, 2, "percentage"},
		{[]string{"trim", "--fit", "10", "--keep", "x", "abcd1"}, 2, "choose one"},
		{[]string{"trim"}, 2, "needs a SESSION"},
		{[]string{"trim", "--keep-file", "/nope/notes.md", "abcd1"}, 3, "keep file"},
		{[]string{"trim", "--fit", "10", "abcd1"}, 1, "cannot fit"},
		{[]string{"trim", "--restore", "abcd1"}, 1, "no backup"},
	}
	for _, c := range cases {
		ta.err.Reset()
		code := ta.run(c.args...)
		if code != c.code || !strings.Contains(ta.err.String(), c.want) || strings.Count(ta.err.String(), "\n") != 1 {
			t.Errorf("%v: exit %d %q, want %d %q", c.args, code, ta.err, c.code, c.want)
		}
	}
	// An unfamiliar chain record stops the trim with the line and version;
	// --allow-unknown passes it through.
	path := seedSession(t, ta, "ee000000-0000-4000-8000-000000000003", dir)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"hologram","uuid":"h1","parentUuid":null,"version":"9.9.9","sessionId":"x"}` + "\n")
	f.Close()
	ta.err.Reset()
	if code := ta.run("trim", "--keep", "docs", "ee00"); code != 1 || !strings.Contains(ta.err.String(), `line 30: unknown chain record type (type "hologram", version 9.9.9)`) {
		t.Errorf("drift: exit %d %q", code, ta.err)
	}
	if code := ta.run("trim", "--keep", "docs", "--allow-unknown", "ee00"); code != 0 {
		t.Errorf("--allow-unknown: exit %d %q", code, ta.err)
	}
}

// Issue 13.1: a session Claude Code 2.0.x is running is refused, though
// it wrote no pid file; --force still trims.
func TestTrimRefusesLiveSessionWithoutPidFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("no /proc")
	}
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "src", "proj")
	os.MkdirAll(dir, 0o755)
	id := "d9f7843f-07d6-4b50-9048-40676f77f965"
	path := seedSession(t, ta, id, dir)
	orig, _ := os.ReadFile(path)
	pid := testutil.StartFakeClaude(t, dir, ta.Loc.ClaudeDir)

	code := ta.run("trim", "--keep", "docs", id)
	if code != 4 || !strings.Contains(ta.err.String(), "may be running") || !strings.Contains(ta.err.String(), fmt.Sprint(pid)) {
		t.Fatalf("live 2.0.x session: exit %d %q", code, ta.err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(orig) {
		t.Fatal("refused trim changed the file")
	}
	if code := ta.run("trim", "--restore", id); code != 4 {
		t.Errorf("restore of a live session: exit %d", code)
	}
	ta.err.Reset()
	if code := ta.run("trim", "--force", "--keep", "docs", id); code != 0 {
		t.Fatalf("--force: exit %d %s", code, ta.err)
	}
}

// TestTrimNamesACodexSession: a Codex session given by id or prefix is
// refused as a Codex one, not reported missing (issue 23: "no such
// session"); a Claude session of the same prefix still wins.
func TestTrimNamesACodexSession(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	for _, arg := range []string{codexID, codexID[:8], "codex:" + codexID} {
		ta.err.Reset()
		code := ta.run("trim", "--fit", "50%", arg)
		msg := ta.err.String()
		if code != 2 || !strings.Contains(msg, "Claude Code sessions only") || !strings.Contains(msg, "Codex session") ||
			strings.Contains(msg, "no such session") || strings.Count(msg, "\n") != 1 {
			t.Errorf("trim %s: exit %d %q, want a usage error naming a Codex session", arg, code, msg)
		}
	}
	ta.err.Reset()
	if code := ta.run("trim", "--fit", "50%", "ffffffff"); code != 3 || !strings.Contains(ta.err.String(), "no such session") {
		t.Errorf("unknown id: exit %d %q", code, ta.err)
	}
}

// TestTrimThroughSymlinks: a transcript linked into projects/ (a dotfiles
// setup), or in a linked project directory, is found by id and trimmed
// through the link: the link stays a link, the file it names is rewritten
// and the backup sits next to that file (issue 23: "no such session").
func TestTrimThroughSymlinks(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "src", "proj")
	elsewhere := filepath.Join(ta.home, "dotfiles")
	os.MkdirAll(elsewhere, 0o700)

	fileID := "abcd1111-0000-4000-8000-000000000001"
	link := seedSession(t, ta, fileID, dir)
	target := filepath.Join(elsewhere, fileID+".jsonl")
	if err := os.Rename(link, target); err != nil {
		t.Fatal(err)
	}
	os.Symlink(target, link)

	dirID := "abcd2222-0000-4000-8000-000000000002"
	other := filepath.Join(ta.home, "src", "other")
	real := filepath.Dir(seedSession(t, ta, dirID, other))
	movedDir := filepath.Join(elsewhere, "other-project")
	if err := os.Rename(real, movedDir); err != nil {
		t.Fatal(err)
	}
	os.Symlink(movedDir, real)

	for _, c := range []struct{ id, link, target string }{
		{fileID, link, target},
		{dirID, filepath.Join(real, dirID+".jsonl"), filepath.Join(movedDir, dirID+".jsonl")},
	} {
		before, _ := os.ReadFile(c.target)
		ta.err.Reset()
		if code := ta.run("trim", "--keep", "docs", c.id[:8]); code != 0 {
			t.Fatalf("trim %s: exit %d %s", c.id, code, ta.err)
		}
		if st, err := os.Lstat(c.link); err != nil || (c.id == fileID && st.Mode()&os.ModeSymlink == 0) {
			t.Errorf("%s: the link was replaced: %v %v", c.link, st.Mode(), err)
		}
		if st, err := os.Lstat(real); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the linked directory was replaced: %v", real, err)
		}
		after, _ := os.ReadFile(c.target)
		if len(after) >= len(before) {
			t.Errorf("%s: %d bytes before, %d after: not trimmed", c.target, len(before), len(after))
		}
		if bak, err := os.ReadFile(c.target + ".bak"); err != nil || string(bak) != string(before) {
			t.Errorf("%s.bak: %v", c.target, err)
		}
	}
}
