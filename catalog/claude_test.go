package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

const (
	sample2177  = "4a3624db-9f07-42fe-a7f0-a27427d60850"
	sample21332 = "d9f7843f-07d6-4b50-9048-40676f77f965"
)

// fakeProcs says which pids are alive.
type fakeProcs map[int]bool

func (f fakeProcs) Alive(pid int) bool { return f[pid] }

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// claudeHome builds a config dir holding both real samples.
func claudeHome(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-home-example-src-proj")
	writeFile(t, filepath.Join(p, sample2177+".jsonl"), readTestdata(t, "claude-2.0.77-tool-session.jsonl"))
	writeFile(t, filepath.Join(p, sample21332+".jsonl"), readTestdata(t, "claude-2.1.332-tool-session.jsonl"))
	return dir
}

func listClaude(t *testing.T, r *claudesessions.Reader) (map[string]Session, []Diagnostic) {
	t.Helper()
	ss, diags, err := r.List(context.Background(), ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Session{}
	for _, s := range ss {
		m[s.ID] = s
	}
	return m, diags
}

func TestClaudeListRealSamples(t *testing.T) {
	dir := claudeHome(t)
	got, diags := listClaude(t, &claudesessions.Reader{Dir: dir, Procs: fakeProcs{}})
	if len(diags) != 0 || len(got) != 2 {
		t.Fatalf("got %d sessions, diags %v", len(got), diags)
	}
	old := got[sample2177]
	if old.Cwd != "/home/example/src/proj" || old.Title != "TOOL_BASH please" || old.TitleSource != TitleFirstPrompt {
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
	cur := got[sample21332]
	if cur.Title != "TOOL_BASH please run echo" || cur.TitleSource != TitleLastPrompt || cur.Origin != "sdk-cli" || cur.CLIVersion != "2.1.332" {
		t.Errorf("2.1.332: %+v", cur)
	}
	if cur.Context == nil || cur.Context.Tokens != 106+1000 || cur.Context.Window != 1_000_000 || !cur.Context.WindowKnown {
		t.Errorf("2.1.332 context %+v", cur.Context)
	}
	if cur.GitBranch != "" {
		t.Errorf("HEAD should read as no branch, got %q", cur.GitBranch)
	}
	if cur.State != StateResumable || strings.Join(cur.Resume.Argv, " ") != "claude --resume "+sample21332 || cur.Resume.Dir != "/home/example/src/proj" {
		t.Errorf("resume %+v state %s", cur.Resume, cur.State)
	}
}

func jsonLines(recs ...map[string]any) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		d, _ := json.Marshal(r)
		b.Write(d)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func userRec(id, cwd, ts string, content any, extra map[string]any) map[string]any {
	r := map[string]any{"type": "user", "sessionId": id, "cwd": cwd, "timestamp": ts, "isSidechain": false,
		"uuid": "u-" + ts, "message": map[string]any{"role": "user", "content": content}, "version": "2.0.77", "gitBranch": "main"}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

func asstRec(id, ts, model string, in, cc, cr int, extra map[string]any) map[string]any {
	r := map[string]any{"type": "assistant", "sessionId": id, "cwd": "/home/example/src/p", "timestamp": ts, "isSidechain": false,
		"uuid": "a-" + ts, "message": map[string]any{"id": "msg-" + ts, "role": "assistant", "model": model,
			"content": []any{map[string]any{"type": "text", "text": "ok"}},
			"usage":   map[string]any{"input_tokens": in, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr, "output_tokens": 5}}}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

func TestClaudeTitlePrecedenceAndHumanRule(t *testing.T) {
	const id = "11111111-2222-3333-4444-555555555555"
	cwd := "/home/example/src/p"
	base := []map[string]any{
		userRec(id, cwd, "2026-01-01T00:00:00Z", "<command-name>/clear</command-name>", nil),
		userRec(id, cwd, "2026-01-01T00:00:01Z", "meta text", map[string]any{"isMeta": true}),
		userRec(id, cwd, "2026-01-01T00:00:02Z", []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "r"}}, nil),
		userRec(id, cwd, "2026-01-01T00:00:03Z", "side", map[string]any{"isSidechain": true}),
		userRec(id, cwd, "2026-01-01T00:00:04Z", "from a hook", map[string]any{"promptSource": "hook"}),
		userRec(id, cwd, "2026-01-01T00:00:05Z", []any{map[string]any{"type": "text", "text": "fix the\nparser"}}, nil),
		asstRec(id, "2026-01-01T00:00:06Z", "claude-sonnet-4-5", 1, 2, 3, nil),
		userRec(id, cwd, "2026-01-01T00:00:07Z", "[Request interrupted by user]", nil),
	}
	cases := []struct {
		extra      []map[string]any
		want, from string
	}{
		{nil, "fix the parser", TitleFirstPrompt},
		{[]map[string]any{{"type": "summary", "summary": "Parser fix"}}, "Parser fix", TitleSummary},
		{[]map[string]any{{"type": "summary", "summary": "S"}, {"type": "last-prompt", "lastPrompt": "LP"}}, "LP", TitleLastPrompt},
		{[]map[string]any{{"type": "ai-title", "aiTitle": "old"}, {"type": "ai-title", "aiTitle": "AI"}, {"type": "last-prompt", "lastPrompt": "LP"}}, "AI", TitleAI},
		{[]map[string]any{{"type": "custom-title", "customTitle": "Mine"}, {"type": "ai-title", "aiTitle": "AI"}}, "Mine", TitleCustom},
	}
	for i, c := range cases {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "projects", "-home-example-src-p", id+".jsonl"), jsonLines(append(append([]map[string]any{}, base...), c.extra...)...))
		got, diags := listClaude(t, &claudesessions.Reader{Dir: dir, Procs: fakeProcs{}})
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
	writeFile(t, filepath.Join(dir, "projects", "x", id+".jsonl"), jsonLines(base[0], base[1]))
	got, _ := listClaude(t, &claudesessions.Reader{Dir: dir, Procs: fakeProcs{}})
	if s := got[id]; s.Title != "p" || s.TitleSource != TitleCwd || s.LastHumanActivity != nil {
		t.Errorf("fallback title %q %s %v", s.Title, s.TitleSource, s.LastHumanActivity)
	}
}

func TestClaudeUsageAfterCompactBoundary(t *testing.T) {
	const id = "22222222-2222-3333-4444-555555555555"
	cwd := "/home/example/src/p"
	boundary := map[string]any{"type": "system", "subtype": "compact_boundary", "parentUuid": nil, "timestamp": "2026-01-01T00:00:03Z",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000, "postTokens": 9000}}
	recs := []map[string]any{
		userRec(id, cwd, "2026-01-01T00:00:00Z", "hi", nil),
		asstRec(id, "2026-01-01T00:00:01Z", "claude-sonnet-4-5", 100000, 20000, 30000, nil),
		asstRec(id, "2026-01-01T00:00:02Z", "claude-sonnet-4-5", 1, 1, 1, map[string]any{"isSidechain": true}),
		boundary,
	}
	for i, c := range []struct {
		tail []map[string]any
		want int64
	}{
		{nil, 0},
		{[]map[string]any{asstRec(id, "2026-01-01T00:00:04Z", "claude-sonnet-4-5", 10, 20, 30, nil)}, 60},
		{[]map[string]any{
			asstRec(id, "2026-01-01T00:00:04Z", "claude-sonnet-4-5", 10, 20, 30, nil),
			asstRec(id, "2026-01-01T00:00:05Z", "<synthetic>", 0, 0, 0, map[string]any{"isApiErrorMessage": true}),
			asstRec(id, "2026-01-01T00:00:06Z", "claude-sonnet-4-5", 7, 7, 7, map[string]any{"isSidechain": true}),
		}, 60},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "projects", "p", id+".jsonl"), jsonLines(append(append([]map[string]any{}, recs...), c.tail...)...))
		got, _ := listClaude(t, &claudesessions.Reader{Dir: dir, Procs: fakeProcs{}})
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
	dir := claudeHome(t)
	p := filepath.Join(dir, "projects", "-home-example-src-proj")
	sub := readTestdata(t, "claude-2.0.77-tool-session.jsonl")
	writeFile(t, filepath.Join(p, "agent-1234abcd.jsonl"), sub)
	writeFile(t, filepath.Join(p, sample21332, "subagents", "agent-99.jsonl"), sub)
	writeFile(t, filepath.Join(p, "empty0000-0000.jsonl"), nil)
	writeFile(t, filepath.Join(p, "binary0000-0000.jsonl"), []byte("\x00\x01\x02garbage\xff\n\x00"))
	writeFile(t, filepath.Join(p, "nocwd0000-0000.jsonl"), []byte(`{"type":"summary","summary":"x"}`+"\n"))
	// Corrupt lines in the middle and a truncated last line are skipped.
	good := append(append([]byte{}, readTestdata(t, "claude-2.0.77-tool-session.jsonl")...), []byte("not json\n{\"type\":\"user\",\"trunc")...)
	writeFile(t, filepath.Join(p, "aaaa0000-1111-2222-3333-444444444444.jsonl"), good)
	got, diags := listClaude(t, &claudesessions.Reader{Dir: dir, Procs: fakeProcs{}})
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
	if _, _, err := (&claudesessions.Reader{Dir: dir}).List(context.Background(), ListOptions{}); err == nil {
		t.Error("unreadable projects dir: no error")
	}
	if ss, _, err := (&claudesessions.Reader{Dir: filepath.Join(dir, "missing")}).List(context.Background(), ListOptions{}); err != nil || len(ss) != 0 {
		t.Errorf("missing root: %v %v", ss, err)
	}
}

func TestClaudeRunningState(t *testing.T) {
	dir := claudeHome(t)
	writeFile(t, filepath.Join(dir, "sessions", "4242.json"), []byte(fmt.Sprintf(`{"pid":4242,"sessionId":%q,"cwd":"/home/example/src/proj","status":"busy","tmux":"work:@1.%%3"}`, sample21332)))
	writeFile(t, filepath.Join(dir, "sessions", "77.json"), []byte(fmt.Sprintf(`{"pid":77,"sessionId":%q}`, sample2177)))
	writeFile(t, filepath.Join(dir, "sessions", "bad.json"), []byte(`{nope`))
	got, _ := listClaude(t, &claudesessions.Reader{Dir: dir, Procs: fakeProcs{4242: true}})
	s := got[sample21332]
	if s.State != StateRunning || s.Runtime == nil || s.Runtime.PID != 4242 || s.Runtime.Tmux != "work" || s.Runtime.Status != "busy" {
		t.Errorf("running session: %s %+v", s.State, s.Runtime)
	}
	if got[sample2177].State != StateResumable {
		t.Errorf("dead pid must not make a session running: %s", got[sample2177].State)
	}
}

// countingOpener counts the bytes read through the files it opens.
type countingOpener struct{ n atomic.Int64 }

type countingFile struct {
	*os.File
	n *atomic.Int64
}

func (c countingFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.File.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func (c countingFile) Stat() (fs.FileInfo, error) { return c.File.Stat() }

func (o *countingOpener) open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return countingFile{f, &o.n}, nil
}

func TestClaudeListReadsBoundedBytes(t *testing.T) {
	dir := t.TempDir()
	const files = 5
	for i := range files {
		writeFile(t, filepath.Join(dir, "projects", "p", fmt.Sprintf("%08d-0000-0000-0000-000000000000.jsonl", i)), genClaudeTranscript(i, 4<<20))
	}
	var o countingOpener
	r := &claudesessions.Reader{Dir: dir, Procs: fakeProcs{}, Open: o.open, HeadBytes: 64 << 10, TailBytes: 64 << 10}
	ss, diags, err := r.List(context.Background(), ListOptions{})
	if err != nil || len(ss) != files || len(diags) != 0 {
		t.Fatalf("%d sessions, %v, %v", len(ss), diags, err)
	}
	if max := int64(files * (64 + 64) << 10); o.n.Load() > max {
		t.Errorf("List read %d bytes of %d files, budget %d", o.n.Load(), files, max)
	}
	for _, s := range ss {
		if s.Context == nil || s.Context.Tokens == 0 || s.Title == "" || s.LastHumanActivity == nil {
			t.Errorf("bounded read lost data: %+v", s)
		}
	}
	// Warm: the cache answers, nothing is read.
	cache := claudesessions.OpenCache(filepath.Join(t.TempDir(), "c.json"))
	r.Cache = cache
	if _, _, err := r.List(context.Background(), ListOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Cache = claudesessions.OpenCache(cache.Path())
	o.n.Store(0)
	ss2, _, _ := r.List(context.Background(), ListOptions{})
	if o.n.Load() != 0 || len(ss2) != files {
		t.Errorf("warm list read %d bytes, %d sessions", o.n.Load(), len(ss2))
	}
	if fi, err := os.Stat(cache.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode: %v %v", fi, err)
	}
}

// genClaudeTranscript writes a transcript of about size bytes with turns
// of prompts, tool calls and big tool results, like a long real session.
func genClaudeTranscript(n int, size int) []byte {
	id := fmt.Sprintf("%08d-0000-0000-0000-000000000000", n)
	cwd := fmt.Sprintf("/home/example/src/project-%d", n%50)
	var b bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
	big := strings.Repeat("x", 20000)
	for turn := 0; b.Len() < size; turn++ {
		ts := func(k int) string { return t0.Add(time.Duration(turn*4+k) * time.Second).Format(time.RFC3339Nano) }
		b.Write(jsonLines(
			userRec(id, cwd, ts(0), fmt.Sprintf("prompt %d for INIT-AB-%03d please", turn, turn%1000), nil),
			asstRec(id, ts(1), "claude-sonnet-4-5", 100+turn, 10, 1000*turn, nil),
			userRec(id, cwd, ts(2), []any{map[string]any{"type": "tool_result", "tool_use_id": "t", "content": big}}, map[string]any{"toolUseResult": map[string]any{"stdout": big}}),
			asstRec(id, ts(3), "claude-sonnet-4-5", 200+turn, 10, 1000*turn, nil),
		))
	}
	return b.Bytes()
}

// Issue 13.1: Claude Code 2.0.x writes no sessions/<pid>.json; a process
// titled claude running in the session's project while its transcript is
// being written makes the session running (possibly).
func TestClaudeRunningWithoutPidFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("no /proc")
	}
	dir, cwd := t.TempDir(), t.TempDir()
	name, _ := claude.ProjectDirName(cwd)
	writeFile(t, filepath.Join(dir, "projects", name, sample2177+".jsonl"), readTestdata(t, "claude-2.0.77-tool-session.jsonl"))
	pid := testutil.StartFakeClaude(t, cwd, dir)
	got, _ := listClaude(t, &claudesessions.Reader{Dir: dir, Procs: fakeProcs{}})
	s := got[sample2177]
	if s.State != StateRunning || s.Runtime == nil || s.Runtime.PID != pid {
		t.Errorf("2.0.x session being written: %s %+v (child %d)", s.State, s.Runtime, pid)
	}
}
