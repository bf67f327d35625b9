// Package sessiontest is the fixtures of the session readers' tests
// (agent/claude/claudesessions, agent/codex/codexsessions) and of the
// catalog's, which merges them: config dirs and CODEX_HOMEs built from the
// real samples under testdata/, generated records, a state
// database of Codex's real schema, and an opener that counts the bytes
// read. Never shipped.
package sessiontest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/testkit/corpus"
	"github.com/tether-dev/tether/internal/testkit/testutil"

	_ "modernc.org/sqlite" // the state database's driver
)

// The ids of the real samples.
const (
	Sample2177  = "4a3624db-9f07-42fe-a7f0-a27427d60850"
	Sample21332 = "d9f7843f-07d6-4b50-9048-40676f77f965"
	SampleCodex = "01a22c1e-edbd-73b1-9ee8-1fcd43d77fc9"
)

// Procs says which pids are alive.
type Procs map[int]bool

// Alive implements scan.ProcessInspector.
func (f Procs) Alive(pid int) bool { return f[pid] }

// WriteFile writes data to path, making its directory.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Sample is the real sample testdata/<elem…> (testutil.Testdata).
func Sample(t testing.TB, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(testutil.Testdata(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ClaudeHome builds a config dir holding both real samples.
func ClaudeHome(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-home-example-src-proj")
	WriteFile(t, filepath.Join(p, Sample2177+".jsonl"), Sample(t, "claude-code-2.0.77", "sample-tool-session.jsonl"))
	WriteFile(t, filepath.Join(p, Sample21332+".jsonl"), Sample(t, "claude-code-2.1.332", "sample-tool-session.jsonl"))
	return dir
}

// List lists r's sessions (all: archived included) by id.
func List(t *testing.T, r agent.Reader, all bool) (map[string]agent.Session, []agent.Diagnostic) {
	t.Helper()
	ss, diags, err := r.List(context.Background(), agent.ListOptions{All: all})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]agent.Session{}
	for _, s := range ss {
		m[s.ID] = s
	}
	return m, diags
}

// JSONLines is recs, one JSON object a line.
func JSONLines(recs ...map[string]any) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		d, _ := json.Marshal(r)
		b.Write(d)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// UserRec is a Claude Code user record.
func UserRec(id, cwd, ts string, content any, extra map[string]any) map[string]any {
	r := map[string]any{"type": "user", "sessionId": id, "cwd": cwd, "timestamp": ts, "isSidechain": false,
		"uuid": "u-" + ts, "message": map[string]any{"role": "user", "content": content}, "version": "2.0.77", "gitBranch": "main"}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

// AsstRec is a Claude Code assistant record with its usage.
func AsstRec(id, ts, model string, in, cc, cr int, extra map[string]any) map[string]any {
	r := map[string]any{"type": "assistant", "sessionId": id, "cwd": "/home/example/src/p", "timestamp": ts, "isSidechain": false,
		"uuid": "a-" + ts, "message": map[string]any{"id": "msg-" + ts, "role": "assistant", "model": model,
			"content": []any{map[string]any{"type": "text", "text": "ok"}},
			"usage":   map[string]any{"input_tokens": in, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr, "output_tokens": 5}}}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

// ClaudeTranscript is transcript n of a generated history, about size
// bytes: turns of a prompt, a tool result of 20 kB and two answers.
func ClaudeTranscript(n int, size int) []byte {
	id := fmt.Sprintf("%08d-0000-0000-0000-000000000000", n)
	cwd := fmt.Sprintf("/home/example/src/project-%d", n%50)
	var b bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
	big := strings.Repeat("x", 20000)
	for turn := 0; b.Len() < size; turn++ {
		ts := func(k int) string { return t0.Add(time.Duration(turn*4+k) * time.Second).Format(time.RFC3339Nano) }
		b.Write(JSONLines(
			UserRec(id, cwd, ts(0), fmt.Sprintf("prompt %d for INIT-AB-%03d please", turn, turn%1000), nil),
			AsstRec(id, ts(1), "claude-sonnet-4-5", 100+turn, 10, 1000*turn, nil),
			UserRec(id, cwd, ts(2), []any{map[string]any{"type": "tool_result", "tool_use_id": "t", "content": big}}, map[string]any{"toolUseResult": map[string]any{"stdout": big}}),
			AsstRec(id, ts(3), "claude-sonnet-4-5", 200+turn, 10, 1000*turn, nil),
		))
	}
	return b.Bytes()
}

// CountingOpener counts the bytes read through the files it opens.
type CountingOpener struct{ N atomic.Int64 }

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

// Open is the opener (agent.Opener).
func (o *CountingOpener) Open(name string) (agent.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return countingFile{f, &o.N}, nil
}

// CodexHome builds a CODEX_HOME with the real sample rollout at its usual
// place; with db set, also a state_5.sqlite from the real schema.
func CodexHome(t *testing.T, db bool) (dir, rollout string) {
	t.Helper()
	dir = t.TempDir()
	rollout = filepath.Join(dir, "sessions", "2026", "11", "30", "rollout-2026-11-30T11-02-34-"+SampleCodex+".jsonl")
	WriteFile(t, rollout, Sample(t, "codex-0.171.0", "sample-rollout-tool-resume.jsonl"))
	if db {
		d := NewStateDB(t, filepath.Join(dir, "state_5.sqlite"))
		InsertThread(t, d, map[string]any{"id": SampleCodex, "rollout_path": rollout, "cwd": "/home/example/src/codex-proj",
			"title": "TOOL_BASH please", "first_user_message": "TOOL_BASH please", "source": "exec",
			"created_at": 1796036554, "updated_at": 1796036555, "git_origin_url": "git@github.com:org/repo.git", "git_branch": "main"})
		d.Close()
	}
	return dir, rollout
}

// NewStateDB creates a Codex state database of the real schema at path.
func NewStateDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The dump includes SQLite's own sqlite_sequence, which cannot be
	// created by hand.
	schema, err := corpus.StateDDL()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	return db
}

// InsertThread adds a thread of these columns (the required others
// defaulted).
func InsertThread(t *testing.T, db *sql.DB, cols map[string]any) {
	t.Helper()
	defaults := map[string]any{"source": "cli", "model_provider": "fake", "title": "", "sandbox_policy": "{}", "approval_mode": "never"}
	for k, v := range defaults {
		if _, ok := cols[k]; !ok {
			cols[k] = v
		}
	}
	var names, marks []string
	var vals []any
	for k, v := range cols {
		names = append(names, k)
		marks = append(marks, "?")
		vals = append(vals, v)
	}
	q := fmt.Sprintf("INSERT INTO threads (%s) VALUES (%s)", strings.Join(names, ","), strings.Join(marks, ","))
	if _, err := db.Exec(q, vals...); err != nil {
		t.Fatal(err)
	}
}

// OpenFiles says which files are held open, by which pid.
type OpenFiles map[string]int

// OpenBy implements scan.OpenFileFinder.
func (f OpenFiles) OpenBy(paths map[string]bool) map[string]int {
	out := map[string]int{}
	for p, pid := range f {
		if paths[p] {
			out[p] = pid
		}
	}
	return out
}

// SetMTime sets path's access and modification times to mt.
func SetMTime(t *testing.T, path string, mt time.Time) {
	t.Helper()
	if err := os.Chtimes(path, mt, mt); err != nil {
		t.Fatal(err)
	}
}
