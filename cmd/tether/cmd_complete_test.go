package main

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/shellinit/compindex"
)

// completeApp has an index of two Claude sessions (one here, one
// elsewhere), one Codex session and one OpenCode session.
func completeApp(t *testing.T) (*testApp, string) {
	ta, root := promptApp(t)
	now := time.Now()
	err := compindex.Write(compindex.Path(ta.Loc.CacheDir), []compindex.Entry{
		{Harness: "codex", ID: "0199aaaa-codex", LastActivity: now.Add(-time.Minute), Root: root, Title: "codex work"},
		{Harness: "opencode", ID: "ses_dcd1opencode", LastActivity: now.Add(-4 * time.Hour), Root: root, Title: "opencode work"},
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
		// opencode -s/--session: OpenCode's ids only.
		{[]string{"--shell", "bash", "--", "opencode", "-s", ""}, "ses_dcd1opencode\n"},
		{[]string{"--shell", "bash", "--", "opencode", "run", "--session", "ses"}, "ses_dcd1opencode\n"},
		{[]string{"--shell", "fish", "--", "opencode", "--session=s"}, "--session=ses_dcd1opencode\t4h ago · opencode work\n"},
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
		{"--", "opencode", "run", ""},
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
		"tether sessions --harness ":       "claude-code\ncodex\nopencode\n",
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
	ta.indexSource = func(context.Context) ([]compindex.Entry, error) {
		ran++
		return []compindex.Entry{{Harness: "claude-code", ID: "fresh-id", LastActivity: time.Now(), Title: "t"}}, nil
	}
	spawned := 0
	opts := hot.CompleteOptions{
		Out: ta.out, Shell: "bash", Words: []string{"claude", "-r", ""},
		IndexPath: compindex.Path(ta.Loc.CacheDir), Now: time.Now(), Refresh: func() { spawned++ },
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
	os.WriteFile(compindex.Path(ta.Loc.CacheDir)+".lock", nil, 0o600)
	if code := ta.run("complete", "--refresh-index"); code != 0 || ran != 1 {
		t.Errorf("refresh under a live lock ran: %d", ran)
	}
	st, _ := os.Stat(compindex.Path(ta.Loc.CacheDir))
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

// TestHarnessNamesAreTheRegistrys: every --harness flag completes to the
// agents both binaries register, no fewer (a third agent was once left
// out of the completion while it listed).
func TestHarnessNamesAreTheRegistrys(t *testing.T) {
	got := strings.Join(harnessNames, " ")
	want := strings.Join(hot.AgentsAt(locations.Locations{}).Names(), " ")
	if got != want {
		t.Errorf("harnessNames = %q, the registry has %q", got, want)
	}
	ta, _ := completeApp(t)
	for _, cmd := range [][]string{{"sessions"}, {"sessions", "search", "x"}, {"pick"}, {"usage"}} {
		args := append([]string{"--shell", "bash", "--", "tether"}, cmd...)
		out, code := completeOut(t, ta, append(args, "--harness", "")...)
		if code != 0 || out != strings.Join(harnessNames, "\n")+"\n" {
			t.Errorf("tether %v --harness <TAB>: code %d, %q", cmd, code, out)
		}
	}
}
