package claudesessions_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func TestClaudeListRealSamples(t *testing.T) {
	dir := sessiontest.ClaudeHome(t)
	got, diags := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}, false)
	if len(diags) != 0 || len(got) != 2 {
		t.Fatalf("got %d sessions, diags %v", len(got), diags)
	}
	old := got[sessiontest.Sample2177]
	if old.Cwd != "/home/example/src/proj" || old.Title != "TOOL_BASH please" || old.TitleSource != agent.TitleFirstPrompt {
		t.Errorf("2.0.77: %+v", old)
	}
	if old.Context == nil || old.Context.Tokens != 174+1000 || old.Context.Window != 200000 || old.Context.WindowKnown {
		t.Errorf("2.0.77 context %+v", old.Context)
	}
	if old.Created.Format(time.RFC3339Nano) != "2026-11-30T11:04:09.342Z" || old.LastActivity.Format(time.RFC3339Nano) != "2026-11-30T11:04:10.462Z" {
		t.Errorf("2.0.77 times %v %v", old.Created, old.LastActivity)
	}
	if old.LastHumanActivity == nil || old.LastHumanActivity.Format(time.RFC3339Nano) != "2026-11-30T11:04:09.399Z" {
		t.Errorf("2.0.77 last human %v", old.LastHumanActivity)
	}
	cur := got[sessiontest.Sample21332]
	if cur.Title != "TOOL_BASH please run echo" || cur.TitleSource != agent.TitleLastPrompt || cur.Origin != "sdk-cli" || cur.CLIVersion != "2.1.332" {
		t.Errorf("2.1.332: %+v", cur)
	}
	if cur.Context == nil || cur.Context.Tokens != 106+1000 || cur.Context.Window != 1_000_000 || !cur.Context.WindowKnown {
		t.Errorf("2.1.332 context %+v", cur.Context)
	}
	if cur.GitBranch != "" {
		t.Errorf("HEAD should read as no branch, got %q", cur.GitBranch)
	}
	if cur.State != agent.StateResumable || strings.Join(cur.Resume.Argv, " ") != "claude --resume "+sessiontest.Sample21332 || cur.Resume.Dir != "/home/example/src/proj" {
		t.Errorf("resume %+v state %s", cur.Resume, cur.State)
	}
}

func TestClaudeTitlePrecedenceAndHumanRule(t *testing.T) {
	const id = "11111111-2222-3333-4444-555555555555"
	cwd := "/home/example/src/p"
	base := []map[string]any{
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:00Z", "<command-name>/clear</command-name>", nil),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:01Z", "meta text", map[string]any{"isMeta": true}),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:02Z", []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "r"}}, nil),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:03Z", "side", map[string]any{"isSidechain": true}),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:04Z", "from a hook", map[string]any{"promptSource": "hook"}),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:05Z", []any{map[string]any{"type": "text", "text": "fix the\nparser"}}, nil),
		sessiontest.AsstRec(id, "2026-01-01T00:00:06Z", "claude-sonnet-4-5", 1, 2, 3, nil),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:07Z", "[Request interrupted by user]", nil),
	}
	cases := []struct {
		extra      []map[string]any
		want, from string
	}{
		{nil, "fix the parser", agent.TitleFirstPrompt},
		{[]map[string]any{{"type": "summary", "summary": "Parser fix"}}, "Parser fix", agent.TitleSummary},
		{[]map[string]any{{"type": "summary", "summary": "S"}, {"type": "last-prompt", "lastPrompt": "LP"}}, "LP", agent.TitleLastPrompt},
		{[]map[string]any{{"type": "ai-title", "aiTitle": "old"}, {"type": "ai-title", "aiTitle": "AI"}, {"type": "last-prompt", "lastPrompt": "LP"}}, "AI", agent.TitleAI},
		{[]map[string]any{{"type": "custom-title", "customTitle": "Mine"}, {"type": "ai-title", "aiTitle": "AI"}}, "Mine", agent.TitleCustom},
	}
	for i, c := range cases {
		dir := t.TempDir()
		sessiontest.WriteFile(t, filepath.Join(dir, "projects", "-home-example-src-p", id+".jsonl"), sessiontest.JSONLines(append(append([]map[string]any{}, base...), c.extra...)...))
		got, diags := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}, false)
		s := got[id]
		if len(diags) != 0 || s.Title != c.want || s.TitleSource != c.from {
			t.Errorf("case %d: title %q from %s, diags %v", i, s.Title, s.TitleSource, diags)
		}
		if s.LastHumanActivity == nil || !s.LastHumanActivity.Equal(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC)) {
			t.Errorf("case %d: last human %v", i, s.LastHumanActivity)
		}
		if s.GitBranch != "main" || s.Context.Tokens != 6 {
			t.Errorf("case %d: branch %q context %+v", i, s.GitBranch, s.Context)
		}
	}
	// No human prompt and no title record: the cwd base name.
	dir := t.TempDir()
	sessiontest.WriteFile(t, filepath.Join(dir, "projects", "x", id+".jsonl"), sessiontest.JSONLines(base[0], base[1]))
	got, _ := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}, false)
	if s := got[id]; s.Title != "p" || s.TitleSource != agent.TitleCwd || s.LastHumanActivity != nil {
		t.Errorf("fallback title %q %s %v", s.Title, s.TitleSource, s.LastHumanActivity)
	}
}

func TestClaudeUsageAfterCompactBoundary(t *testing.T) {
	const id = "22222222-2222-3333-4444-555555555555"
	cwd := "/home/example/src/p"
	boundary := map[string]any{"type": "system", "subtype": "compact_boundary", "parentUuid": nil, "timestamp": "2026-01-01T00:00:03Z",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000, "postTokens": 9000}}
	recs := []map[string]any{
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:00Z", "hi", nil),
		sessiontest.AsstRec(id, "2026-01-01T00:00:01Z", "claude-sonnet-4-5", 100000, 20000, 30000, nil),
		sessiontest.AsstRec(id, "2026-01-01T00:00:02Z", "claude-sonnet-4-5", 1, 1, 1, map[string]any{"isSidechain": true}),
		boundary,
	}
	for i, c := range []struct {
		tail []map[string]any
		want int64
	}{
		{nil, 0},
		{[]map[string]any{sessiontest.AsstRec(id, "2026-01-01T00:00:04Z", "claude-sonnet-4-5", 10, 20, 30, nil)}, 60},
		{[]map[string]any{
			sessiontest.AsstRec(id, "2026-01-01T00:00:04Z", "claude-sonnet-4-5", 10, 20, 30, nil),
			sessiontest.AsstRec(id, "2026-01-01T00:00:05Z", "<synthetic>", 0, 0, 0, map[string]any{"isApiErrorMessage": true}),
			sessiontest.AsstRec(id, "2026-01-01T00:00:06Z", "claude-sonnet-4-5", 7, 7, 7, map[string]any{"isSidechain": true}),
		}, 60},
	} {
		dir := t.TempDir()
		sessiontest.WriteFile(t, filepath.Join(dir, "projects", "p", id+".jsonl"), sessiontest.JSONLines(append(append([]map[string]any{}, recs...), c.tail...)...))
		got, _ := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}, false)
		s := got[id]
		if c.want == 0 && s.Context != nil {
			t.Errorf("case %d: context %+v, want none after the boundary", i, s.Context)
		}
		if c.want != 0 && (s.Context == nil || s.Context.Tokens != c.want) {
			t.Errorf("case %d: context %+v, want %d", i, s.Context, c.want)
		}
	}
}

func TestClaudeLayoutsAndDiagnostics(t *testing.T) {
	dir := sessiontest.ClaudeHome(t)
	p := filepath.Join(dir, "projects", "-home-example-src-proj")
	sub := sessiontest.Sample(t, "claude-code-2.0.77", "sample-tool-session.jsonl")
	sessiontest.WriteFile(t, filepath.Join(p, "agent-1234abcd.jsonl"), sub)
	sessiontest.WriteFile(t, filepath.Join(p, sessiontest.Sample21332, "subagents", "agent-99.jsonl"), sub)
	sessiontest.WriteFile(t, filepath.Join(p, "empty0000-0000.jsonl"), nil)
	sessiontest.WriteFile(t, filepath.Join(p, "binary0000-0000.jsonl"), []byte("\x00\x01\x02garbage\xff\n\x00"))
	sessiontest.WriteFile(t, filepath.Join(p, "nocwd0000-0000.jsonl"), []byte(`{"type":"summary","summary":"x"}`+"\n"))
	// Corrupt lines in the middle and a truncated last line are skipped.
	good := append(append([]byte{}, sessiontest.Sample(t, "claude-code-2.0.77", "sample-tool-session.jsonl")...), []byte("not json\n{\"type\":\"user\",\"trunc")...)
	sessiontest.WriteFile(t, filepath.Join(p, "aaaa0000-1111-2222-3333-444444444444.jsonl"), good)
	got, diags := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}, false)
	if len(got) != 3 {
		t.Errorf("want the two samples and the corrupt-tailed file, got %d: %v", len(got), got)
	}
	if _, ok := got["aaaa0000-1111-2222-3333-444444444444"]; !ok {
		t.Error("file with garbage lines is hidden")
	}
	problems := map[string]string{}
	for _, d := range diags {
		problems[filepath.Base(d.Path)] = d.Problem
	}
	for _, name := range []string{"empty0000-0000.jsonl", "binary0000-0000.jsonl", "nocwd0000-0000.jsonl"} {
		if problems[name] == "" {
			t.Errorf("no diagnostic for %s (got %v)", name, problems)
		}
	}
	if len(diags) != 3 {
		t.Errorf("diagnostics %v", diags)
	}
}

func TestClaudeUnreadableRootIsAnError(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads everything")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "projects")
	if err := os.Mkdir(p, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(p, 0o755)
	if _, _, err := (&claudesessions.Reader{Dir: dir}).List(context.Background(), agent.ListOptions{}); err == nil {
		t.Error("unreadable projects dir: no error")
	}
	if ss, _, err := (&claudesessions.Reader{Dir: filepath.Join(dir, "missing")}).List(context.Background(), agent.ListOptions{}); err != nil || len(ss) != 0 {
		t.Errorf("missing root: %v %v", ss, err)
	}
}

func TestClaudeRunningState(t *testing.T) {
	dir := sessiontest.ClaudeHome(t)
	sessiontest.WriteFile(t, filepath.Join(dir, "sessions", "4242.json"), []byte(fmt.Sprintf(`{"pid":4242,"sessionId":%q,"cwd":"/home/example/src/proj","status":"busy","tmux":"work:@1.%%3"}`, sessiontest.Sample21332)))
	sessiontest.WriteFile(t, filepath.Join(dir, "sessions", "77.json"), []byte(fmt.Sprintf(`{"pid":77,"sessionId":%q}`, sessiontest.Sample2177)))
	sessiontest.WriteFile(t, filepath.Join(dir, "sessions", "bad.json"), []byte(`{nope`))
	got, _ := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{4242: true}}, false)
	s := got[sessiontest.Sample21332]
	if s.State != agent.StateRunning || s.Runtime == nil || s.Runtime.PID != 4242 || s.Runtime.Tmux != "work" || s.Runtime.Status != "busy" {
		t.Errorf("running session: %s %+v", s.State, s.Runtime)
	}
	if got[sessiontest.Sample2177].State != agent.StateResumable {
		t.Errorf("dead pid must not make a session running: %s", got[sessiontest.Sample2177].State)
	}
}

func TestClaudeListReadsBoundedBytes(t *testing.T) {
	dir := t.TempDir()
	const files = 5
	for i := range files {
		sessiontest.WriteFile(t, filepath.Join(dir, "projects", "p", fmt.Sprintf("%08d-0000-0000-0000-000000000000.jsonl", i)), sessiontest.ClaudeTranscript(i, 4<<20))
	}
	var o sessiontest.CountingOpener
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Open: o.Open, HeadBytes: 64 << 10, TailBytes: 64 << 10}
	ss, diags, err := r.List(context.Background(), agent.ListOptions{})
	if err != nil || len(ss) != files || len(diags) != 0 {
		t.Fatalf("%d sessions, %v, %v", len(ss), diags, err)
	}
	if max := int64(files * (64 + 64) << 10); o.N.Load() > max {
		t.Errorf("List read %d bytes of %d files, budget %d", o.N.Load(), files, max)
	}
	for _, s := range ss {
		if s.Context == nil || s.Context.Tokens == 0 || s.Title == "" || s.LastHumanActivity == nil {
			t.Errorf("bounded read lost data: %+v", s)
		}
	}
	// Warm: the cache answers, nothing is read.
	cache := claudesessions.OpenCache(filepath.Join(t.TempDir(), "c.json"))
	r.Cache = cache
	if _, _, err := r.List(context.Background(), agent.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Cache = claudesessions.OpenCache(cache.Path())
	o.N.Store(0)
	ss2, _, _ := r.List(context.Background(), agent.ListOptions{})
	if o.N.Load() != 0 || len(ss2) != files {
		t.Errorf("warm list read %d bytes, %d sessions", o.N.Load(), len(ss2))
	}
	if fi, err := os.Stat(cache.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode: %v %v", fi, err)
	}
}

// sessiontest.ClaudeTranscript writes a transcript of about size bytes with turns
// of prompts, tool calls and big tool results, like a long real session.
// Issue 13.1: Claude Code 2.0.x writes no sessions/<pid>.json; a process
// titled claude running in the session's project while its transcript is
// being written makes the session running (possibly).
func TestClaudeRunningWithoutPidFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("no /proc")
	}
	dir, cwd := t.TempDir(), t.TempDir()
	name, _ := claude.ProjectDirName(cwd)
	sessiontest.WriteFile(t, filepath.Join(dir, "projects", name, sessiontest.Sample2177+".jsonl"), sessiontest.Sample(t, "claude-code-2.0.77", "sample-tool-session.jsonl"))
	pid := testutil.StartFakeClaude(t, cwd, dir)
	got, _ := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}, false)
	s := got[sessiontest.Sample2177]
	if s.State != agent.StateRunning || s.Runtime == nil || s.Runtime.PID != pid {
		t.Errorf("2.0.x session being written: %s %+v (child %d)", s.State, s.Runtime, pid)
	}
}
