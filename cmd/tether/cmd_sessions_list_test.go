package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSessionsListJSONValidatesAndFilters(t *testing.T) {
	ta := newTestApp(t)
	ta.Now = func() time.Time { return time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) }
	withSessions(t, ta, "")
	// A corrupt transcript is a diagnostic, never a failure.
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "x", "bad00000-0000.jsonl"), []byte("\x00garbage\n"))
	if code := ta.run("sessions", "list", "--json"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	m := validate(t, "list", ta.out.Bytes())
	ss := m["sessions"].([]any)
	if len(ss) != 3 || len(m["diagnostics"].([]any)) != 1 {
		t.Fatalf("sessions %d diagnostics %v", len(ss), m["diagnostics"])
	}
	// Newest first: the Codex sample (11:02) comes after 2.0.77 (11:04).
	if first := ss[0].(map[string]any); first["id"] != claudeOld {
		t.Errorf("order: first is %v", first["id"])
	}

	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--harness", "codex"}, 1},
		{[]string{"--harness", "claude-code", "--limit", "1"}, 1},
		// `tether run claude` names it claude: the flag takes that too.
		{[]string{"--harness", "claude"}, 2},
		{[]string{"--state", "running"}, 0},
		{[]string{"--since", "1h"}, 0},
		{[]string{"--since", "100000d"}, 3},
		{[]string{"--cwd", "/home/example/src/codex-proj/"}, 1},
	} {
		ta.out.Reset()
		if code := ta.run(append([]string{"sessions", "--json"}, c.args...)...); code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, code, ta.err)
		}
		m := validate(t, "list", ta.out.Bytes())
		if n := len(m["sessions"].([]any)); n != c.want {
			t.Errorf("%v: %d sessions, want %d", c.args, n, c.want)
		}
	}
	for _, bad := range [][]string{{"--harness", "gemini"}, {"--state", "dead"}, {"--since", "soon"}, {"extra"}} {
		if code := ta.run(append([]string{"sessions"}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

func TestSessionsNoContent(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.run("sessions", "--json", "--no-content")
	out := ta.out.String()
	validate(t, "list", ta.out.Bytes())
	if strings.Contains(out, "TOOL_BASH") || strings.Contains(out, "please") {
		t.Errorf("--no-content leaks prompt text:\n%s", out)
	}
	if !strings.Contains(out, `"title": "proj"`) || !strings.Contains(out, `"titleSource": "cwd"`) {
		t.Errorf("titles should fall back to the cwd base name:\n%s", out)
	}
	ta.out.Reset()
	ta.run("sessions", "show", "d9f7", "--json", "--no-content")
	validate(t, "show", ta.out.Bytes())
	if strings.Contains(ta.out.String(), "TOOL_BASH") {
		t.Errorf("show --no-content leaks:\n%s", ta.out)
	}
}

func TestSessionsCwdMatchesThroughSymlink(t *testing.T) {
	ta := newTestApp(t)
	real := filepath.Join(ta.home, "src", "real project")
	os.MkdirAll(real, 0o755)
	link := filepath.Join(ta.home, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	withSessions(t, ta, real)
	for _, dir := range []string{link + "/", real, filepath.Join(link, "..", "link")} {
		ta.out.Reset()
		ta.run("sessions", "--json", "--cwd", dir)
		m := validate(t, "list", ta.out.Bytes())
		if n := len(m["sessions"].([]any)); n != 3 {
			t.Errorf("--cwd %s: %d sessions, want 3", dir, n)
		}
	}
}

func TestSessionsTable(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.Now = func() time.Time { return time.Date(2026, 11, 30, 12, 4, 10, 0, time.UTC) }
	if code := ta.run("sessions"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	lines := strings.Split(strings.TrimSpace(ta.out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "HARNESS") {
		t.Fatalf("table:\n%s", ta.out)
	}
	for _, want := range []string{"claude-code  4a3624db  proj", "1h", "resumable", "0.1%", "TOOL_BASH please run echo", "codex"} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, ta.out)
		}
	}
}

func TestSessionsRepoFilter(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ta := newTestApp(t)
	repo := filepath.Join(ta.home, "src", "widget")
	sub := filepath.Join(repo, "pkg")
	os.MkdirAll(sub, 0o755)
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://github.com/org/widget.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	withSessions(t, ta, sub)
	ta.run("sessions", "--json", "--harness", "claude-code")
	if n := strings.Count(ta.out.String(), `"gitOrigin": "github.com/org/widget"`); n != 2 {
		t.Errorf("gitOrigin from the cwd's repository: %d\n%s", n, ta.out)
	}
	for _, c := range []struct {
		repo string
		want int
	}{{"github.com/org/widget", 3}, {"org/widget", 3}, {"widget", 3}, {repo, 3}, {"org/other", 0}, {"dget", 0}} {
		ta.out.Reset()
		ta.run("sessions", "--json", "--repo", c.repo)
		if n := len(validate(t, "list", ta.out.Bytes())["sessions"].([]any)); n != c.want {
			t.Errorf("--repo %s: %d sessions, want %d", c.repo, n, c.want)
		}
	}
}

func TestSessionsListSaysWhereItLooked(t *testing.T) {
	ta := newTestApp(t)
	if code := ta.run("sessions"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	want := "tether: no Claude Code or Codex sessions yet (looked in " + filepath.Join(ta.home, ".claude", "projects") + " and " + filepath.Join(ta.home, ".codex") + "); they are listed here once you run claude or codex\n"
	if ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}
	// An empty history prints no table header.
	if ta.out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", ta.out.String())
	}
}

// TestSessionsRepoFilterRelativePath: --repo . (or any relative path)
// names the repository holding that directory, taken against the working
// directory, so it works from a subdirectory of the repository (issue 23:
// it matched nothing there).
func TestSessionsRepoFilterRelativePath(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ta := newTestApp(t)
	repo := filepath.Join(ta.home, "src", "widget")
	sub := filepath.Join(repo, "pkg", "deep")
	os.MkdirAll(sub, 0o755)
	os.MkdirAll(filepath.Join(ta.home, "src", "other"), 0o755)
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	withSessions(t, ta, filepath.Join(repo, "pkg"))
	t.Chdir(sub)
	for _, c := range []struct {
		repo string
		want int
	}{{".", 3}, {"./", 3}, {"..", 3}, {"../..", 3}, {sub, 3}, {"../../../other", 0}} {
		ta.out.Reset()
		ta.err.Reset()
		ta.run("sessions", "--json", "--repo", c.repo)
		if n := len(validate(t, "list", ta.out.Bytes())["sessions"].([]any)); n != c.want {
			t.Errorf("--repo %s from %s: %d sessions, want %d (%s)", c.repo, sub, n, c.want, ta.err)
		}
	}
}

// TestSessionsCodexCtxIsNotZero: the Codex sample used 153 tokens of a
// 258,400-token window (0.06%): CTX reads 0.1%, as the README promises for
// every small share, never 0% (issue 23), in the table and in show.
func TestSessionsCodexCtxIsNotZero(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	if code := ta.run("sessions", "--harness", "codex"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	lines := strings.Split(strings.TrimSpace(ta.out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("table:\n%s", ta.out)
	}
	col := strings.Index(lines[0], "CTX")
	if cell := strings.Fields(lines[1][col:])[0]; cell != "0.1%" {
		t.Errorf("Codex CTX %q, want 0.1%%:\n%s", cell, ta.out)
	}
	ta.out.Reset()
	ta.run("sessions", "show", codexID)
	if !strings.Contains(ta.out.String(), "context:       0.1% (153/") {
		t.Errorf("show:\n%s", ta.out)
	}
}
