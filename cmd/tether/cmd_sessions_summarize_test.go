package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/summarize"
)

const summaryReply = `{"title":"Run the tools\u001b[31m","objective":"try Bash and Read","completed":"ran echo, read notes.txt","currentWork":"second turn","likelyNext":"nothing"}`

// withProvider configures the command provider as a script answering
// reply (and counting its calls in calls).
func withProvider(t *testing.T, ta *testApp, body string, extra string) (calls string) {
	t.Helper()
	calls = filepath.Join(ta.home, "calls")
	script := filepath.Join(ta.home, "provider.sh")
	put(t, script, []byte("#!/bin/sh\ncat >/dev/null\necho x >> '"+calls+"'\n"+body+"\n"))
	os.Chmod(script, 0o700)
	put(t, filepath.Join(ta.home, "config", "tether", "config.toml"),
		[]byte("[summarize]\nprovider = \"command\"\ncommand = [\""+script+"\"]\n"+extra))
	return calls
}

func countCalls(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "x")
}

func TestSummarizeNoProvider(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	if code := ta.run("sessions", "summarize", claudeNew[:8]); code != 4 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	msg := strings.TrimSpace(ta.err.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, `[summarize] provider = "claude"`) {
		t.Errorf("opt-in message: %q", msg)
	}
}

func TestSummarizeShowAndList(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	calls := withProvider(t, ta, "echo '"+summaryReply+"'", "")
	if code := ta.run("sessions", "summarize", claudeNew[:8]); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	if !strings.Contains(ta.out.String(), "summarized  Run the tools[31m") || strings.Contains(ta.out.String(), "\x1b") {
		t.Errorf("output %q", ta.out)
	}
	// Cached: the second run calls nothing.
	ta.out.Reset()
	if code := ta.run("sessions", "summarize", claudeNew[:8]); code != 0 || countCalls(calls) != 1 {
		t.Fatalf("second run: exit %d, %d calls: %s", code, countCalls(calls), ta.err)
	}
	ta.out.Reset()
	if code := ta.run("sessions", "show", claudeNew[:8], "--json"); code != 0 {
		t.Fatal(ta.err)
	}
	doc := validate(t, "show", ta.out.Bytes())
	sum, _ := doc["summary"].(map[string]any)
	if sum == nil || sum["title"] != "Run the tools[31m" || sum["current"] != true || sum["provider"] != "command" {
		t.Errorf("show --json summary: %v", doc["summary"])
	}
	ta.out.Reset()
	ta.run("sessions", "show", claudeNew[:8])
	if !strings.Contains(ta.out.String(), "summary:       Run the tools") || !strings.Contains(ta.out.String(), "current work: second turn") {
		t.Errorf("show:\n%s", ta.out)
	}
	// The picker's preview shows it too.
	c, err := ta.App.catalogFor("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Resolve(context.Background(), claudeNew)
	if err != nil {
		t.Fatal(err)
	}
	if pv, err := ta.App.sessionPreview(context.Background(), c, s, nil); err != nil || !strings.Contains(pv, "summary:       Run the tools") {
		t.Errorf("picker preview (%v):\n%s", err, pv)
	}
	ta.out.Reset()
	ta.run("sessions", "show", claudeNew[:8], "--json", "--no-content")
	if strings.Contains(ta.out.String(), `"summary"`) {
		t.Error("--no-content kept the summary")
	}
	ta.out.Reset()
	if code := ta.run("sessions", "list", "--json"); code != 0 {
		t.Fatal(ta.err)
	}
	validate(t, "list", ta.out.Bytes())
	var l catalog.ListOutput
	json.Unmarshal(ta.out.Bytes(), &l)
	n := 0
	for _, s := range l.Sessions {
		if s.Summary != nil {
			n++
			if s.ID != claudeNew || s.Summary.Title != "Run the tools[31m" {
				t.Errorf("summary on %s: %+v", s.ID, s.Summary)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d sessions with a summary in list --json, want 1", n)
	}
	ta.out.Reset()
	ta.run("sessions", "list", "--summary")
	if lines := strings.Split(ta.out.String(), "\n"); !strings.Contains(lines[0], " SUMMARY ") || !strings.Contains(ta.out.String(), "Run the tools") {
		t.Errorf("list --summary:\n%s", ta.out)
	}
}

func TestSummarizeFailureWritesNothing(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	withProvider(t, ta, "echo 'rate limited' >&2; exit 3", "")
	code := ta.run("sessions", "summarize", "--all")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, id := range []string{claudeNew, claudeOld, codexID} {
		if !strings.Contains(ta.err.String(), "session "+id[:8]+": provider command:") || !strings.Contains(ta.err.String(), "rate limited") {
			t.Errorf("no clear error for %s:\n%s", id[:8], ta.err)
		}
	}
	if _, err := os.Stat(summarize.Dir(ta.Loc.DataDir)); !os.IsNotExist(err) {
		t.Errorf("a failed run wrote %s", summarize.Dir(ta.Loc.DataDir))
	}
	for _, l := range ta.logLines(t) {
		if strings.Contains(l, "rate limited") {
			t.Errorf("the log holds provider output: %s", l)
		}
	}
}

func TestSummarizeDryRunSendsNothing(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	calls := withProvider(t, ta, "echo '"+summaryReply+"'", "")
	if code := ta.run("sessions", "summarize", claudeNew[:8], "--dry-run"); code != 0 {
		t.Fatal(ta.err)
	}
	out := ta.out.String()
	if countCalls(calls) != 0 || !strings.Contains(out, "# provider: ") || !strings.Contains(out, "provider.sh") || !strings.Contains(out, "## latest prompt") {
		t.Errorf("dry run (%d calls):\n%s", countCalls(calls), out)
	}
	if _, err := os.Stat(summarize.Dir(ta.Loc.DataDir)); !os.IsNotExist(err) {
		t.Error("dry run stored something")
	}
}

func TestSummarizeUsage(t *testing.T) {
	ta := newTestApp(t)
	withProvider(t, ta, "true", "")
	for _, args := range [][]string{{}, {"abcd", "--since", "7d"}, {"--since", "7x"}, {"--all", "--concurrency", "-1"}} {
		if code := ta.run(append([]string{"sessions", "summarize"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d", args, code)
		}
	}
	if code := ta.run("sessions", "summarize", "--all", "--provider", "gpt"); code != 2 {
		t.Errorf("unknown provider: exit %d", code)
	}
}

func TestAutoSummarizeAfterSessionEnd(t *testing.T) {
	var started [][]string
	old := startBackground
	startBackground = func(args []string) (int, error) { started = append(started, args); return 42, nil }
	defer func() { startBackground = old }()
	payload := `{"session_id":"81d11e28-b896-4688-b583-c15940ac0fd2","transcript_path":"/home/example/.claude/projects/-p/81d11e28-b896-4688-b583-c15940ac0fd2.jsonl","cwd":"/home/example","hook_event_name":"SessionEnd","reason":"other"}`
	for _, tc := range []struct {
		config string
		event  string
		want   int
	}{
		{"auto = true\n", "SessionEnd", 1},
		{"", "SessionEnd", 0},
		{"auto = true\n", "Stop", 0},
	} {
		started = nil
		ta := newTestApp(t)
		withProvider(t, ta, "true", tc.config)
		ta.IO.In = strings.NewReader(strings.Replace(payload, "SessionEnd", tc.event, 1))
		os.Unsetenv(hot.EnvInHook)
		if code := ta.run("hook"); code != 0 || ta.out.Len() != 0 {
			t.Fatalf("hook: exit %d %q", code, ta.out)
		}
		os.Unsetenv(hot.EnvInHook)
		if len(started) != tc.want {
			t.Errorf("%q %s: started %v", tc.config, tc.event, started)
		}
		if tc.want == 1 && strings.Join(started[0], " ") != "sessions summarize --auto claude-code:81d11e28-b896-4688-b583-c15940ac0fd2" {
			t.Errorf("started %v", started[0])
		}
	}
}

func TestAutoSummarizeOneAtATime(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	calls := withProvider(t, ta, "echo '"+summaryReply+"'", "auto = true\n")
	unlock, ok := tryLock(filepath.Join(ta.Loc.StateDir, "summarize.lock"))
	if !ok {
		t.Fatal("lock")
	}
	if code := ta.run("sessions", "summarize", "--auto", "claude-code:"+claudeNew); code != 0 || countCalls(calls) != 0 {
		t.Errorf("with the lock held: exit %d, %d calls", code, countCalls(calls))
	}
	unlock()
	if code := ta.run("sessions", "summarize", "--auto", "claude-code:"+claudeNew); code != 0 || countCalls(calls) != 1 {
		t.Errorf("lock free: exit %d, %d calls: %s", code, countCalls(calls), ta.err)
	}
}

func TestHandoffUsesCurrentSummary(t *testing.T) {
	s := catalog.Session{ID: "d9f7843f", Cwd: "/home/example/src/project", FirstPrompt: "EXCERPT first prompt",
		Summary: &catalog.Summary{Title: "Parser refactor", CurrentWork: "splitting lexer.go", Current: true}}
	got := handoffText(s, "prompt too long")
	if !strings.Contains(got, "- Summary: Parser refactor") || !strings.Contains(got, "- Where it stopped: splitting lexer.go") || strings.Contains(got, "EXCERPT") {
		t.Errorf("handoff with a current summary:\n%s", got)
	}
	s.Summary.Current = false
	got = handoffText(s, "prompt too long")
	if strings.Contains(got, "Parser refactor") || !strings.Contains(got, "EXCERPT") {
		t.Errorf("handoff with a stale summary:\n%s", got)
	}
}

func TestSummarizeProgressOnTTY(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	// The provider notes when another copy of it is running.
	lock, overlap := filepath.Join(ta.home, "running"), filepath.Join(ta.home, "overlap")
	calls := withProvider(t, ta, "mkdir '"+lock+"' 2>/dev/null || echo x >> '"+overlap+"'\nsleep 0.2\nrmdir '"+lock+"' 2>/dev/null\necho '"+summaryReply+"'", "concurrency = 1\n")
	ta.IO.StderrTTY = true
	if code := ta.run("sessions", "summarize", "--since", "100000d"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	if countCalls(calls) != 3 {
		t.Errorf("%d calls for 3 sessions", countCalls(calls))
	}
	if n := countCalls(overlap); n != 0 {
		t.Errorf("concurrency = 1, but %d provider runs overlapped", n)
	}
	if !strings.Contains(ta.err.String(), "tether: summarizing 1/3 (0 failed)") || !strings.Contains(ta.err.String(), "\r\x1b[K") {
		t.Errorf("no progress line: %q", ta.err)
	}
	// Not a terminal: no progress, and --since leaves out older sessions.
	ta.IO.StderrTTY = false
	ta.err.Reset()
	if code := ta.run("sessions", "summarize", "--since", "1m"); code != 0 || ta.err.String() != "tether: no sessions to summarize\n" {
		t.Errorf("--since 1m: exit %d %q", code, ta.err)
	}
}

// The auto job's provider leaving a child that holds its pipes: the
// timeout still ends the run, and the summary lock is free after it.
func TestAutoSummarizeTimeoutFreesLock(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	withProvider(t, ta, "(sleep 300) & sleep 300", "auto = true\ntimeout_seconds = 1\n")
	done := make(chan int, 1)
	go func() { done <- ta.run("sessions", "summarize", "--auto", "claude-code:"+claudeNew) }()
	select {
	case code := <-done:
		if code != 1 {
			t.Errorf("exit %d, want 1 (a timeout): %s", code, ta.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the auto summary did not end within 30s of its 1s timeout")
	}
	unlock, ok := tryLock(filepath.Join(ta.Loc.StateDir, "summarize.lock"))
	if !ok {
		t.Fatal("the summary lock is still held")
	}
	unlock()
}
