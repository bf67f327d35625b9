package opencodesessions_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode/opencodesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"

	_ "modernc.org/sqlite"
)

var list = sessiontest.List

func reader(data string) agent.Reader {
	return opencodesessions.New(data, "").Sessions(agent.ReaderConfig{})
}

// The real sample sessions list with what the session rows say, and show
// counts what their messages and parts say.
func TestListAndGetRealSample(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	r := reader(data)
	m, diags := list(t, r, false)
	if len(diags) != 0 || len(m) != 2 {
		t.Fatalf("list: %d sessions, diags %v", len(m), diags)
	}
	s := m[sessiontest.SampleOpenCode]
	if s.Harness != agent.OpenCode || s.Cwd != "/home/example/proj" || s.Title != "tool bash not offered" ||
		s.TitleSource != agent.TitleThread || s.Model != "fake-model" || s.CLIVersion != "1.18.33" || s.State != agent.StateResumable {
		t.Errorf("listed: %+v", s)
	}
	if !s.Created.Equal(time.UnixMilli(1796150684544)) || !s.LastActivity.Equal(time.UnixMilli(1796151309765)) {
		t.Errorf("times: %v %v", s.Created, s.LastActivity)
	}
	if s.Tokens == nil || *s.Tokens != (agent.TokenSums{Input: 715, Output: 265, CacheRead: 5000}) {
		t.Errorf("tokens: %+v", s.Tokens)
	}
	if s.Messages == nil || *s.Messages != 9 {
		t.Errorf("messages: %v", s.Messages)
	}
	// The list counts what show counts, in its one query; the last
	// human prompt is the user message "after compaction".
	if s.Counts == nil || *s.Counts != (agent.Counts{HumanPrompts: 3, Messages: 9, ToolCalls: 1, Compactions: 1}) {
		t.Errorf("listed counts: %+v", s.Counts)
	}
	if s.LastHumanActivity == nil || !s.LastHumanActivity.Equal(time.UnixMilli(1796151297369)) {
		t.Errorf("listed last human: %v", s.LastHumanActivity)
	}
	// The last turn after the compaction: its total is the context.
	if s.Context == nil || s.Context.Tokens != 1200 || s.Context.Window != agent.DefaultWindow {
		t.Errorf("context: %+v", s.Context)
	}
	if strings.Join(s.Resume.Argv, " ") != "opencode --session "+s.ID || s.Resume.Dir != s.Cwd {
		t.Errorf("resume: %+v", s.Resume)
	}
	full, err := r.Get(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if *full.Counts != *s.Counts {
		t.Errorf("counts: %+v", *full.Counts)
	}
	if !strings.HasPrefix(full.FirstPrompt, "TOOL_CALL:bash:") || len(full.RecentPrompts) != 3 || full.RecentPrompts[2] != "after compaction" {
		t.Errorf("prompts: %q %q", full.FirstPrompt, full.RecentPrompts)
	}
	if full.Context == nil || full.Context.Tokens != 1200 || len(full.ContextCurve) != 4 {
		t.Errorf("full context: %+v curve %v", full.Context, full.ContextCurve)
	}
	if full.LastHumanActivity == nil || !full.LastHumanActivity.Equal(*s.LastHumanActivity) {
		t.Errorf("last human activity: %v", full.LastHumanActivity)
	}
	// The overflow: one human prompt (the continuation after the
	// automatic compaction is synthetic).
	o, err := r.Get(context.Background(), m[sessiontest.SampleOpenCodeOverflow])
	if err != nil {
		t.Fatal(err)
	}
	if *o.Counts != (agent.Counts{HumanPrompts: 1, Messages: 6, Compactions: 1}) || o.Context == nil || o.Context.Tokens != 1208 {
		t.Errorf("overflow: %+v %+v", *o.Counts, o.Context)
	}
	if lo := m[sessiontest.SampleOpenCodeOverflow]; *lo.Counts != *o.Counts {
		t.Errorf("overflow listed: %+v", *lo.Counts)
	}
}

// A subagent's session lists with its parent; one OpenCode archived
// lists only with --all; an untitled one takes its directory's name.
func TestListChildArchivedUntitled(t *testing.T) {
	data := t.TempDir()
	path := sessiontest.OpenCodeDB(t, data)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO session SELECT 'ses_child', project_id, workspace_id, '` + sessiontest.SampleOpenCode + `', slug, directory, path,
			'New session - 2026-11-30T10:00:00.000Z', version, share_url, summary_additions, summary_deletions, summary_files,
			summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write,
			revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived
			FROM session WHERE id = '` + sessiontest.SampleOpenCode + `'`,
		`UPDATE session SET time_archived = 1796151400000 WHERE id = '` + sessiontest.SampleOpenCodeOverflow + `'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	m, _ := list(t, reader(data), false)
	c, ok := m["ses_child"]
	if !ok || c.Parent != sessiontest.SampleOpenCode || c.Title != "proj" || c.TitleSource != agent.TitleCwd {
		t.Errorf("child: %+v", c)
	}
	if c.Messages == nil || *c.Messages != 0 || c.Context != nil {
		t.Errorf("child without messages: %v %+v", c.Messages, c.Context)
	}
	if _, ok := m[sessiontest.SampleOpenCodeOverflow]; ok {
		t.Error("archived session listed without --all")
	}
	m, _ = list(t, reader(data), true)
	if a := m[sessiontest.SampleOpenCodeOverflow]; !a.Archived {
		t.Errorf("--all: %+v", a)
	}
}

// Listing and showing leave the database as it was: same bytes, same
// mtime, and no -wal or -shm file where there was none.
func TestReadOnly(t *testing.T) {
	data := t.TempDir()
	path := sessiontest.OpenCodeDB(t, data)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	r := reader(data)
	m, _ := list(t, r, true)
	if _, err := r.Get(context.Background(), m[sessiontest.SampleOpenCode]); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if !bytes.Equal(before, after) || !fi.ModTime().Equal(old) {
		t.Errorf("database changed: %d → %d bytes, mtime %v", len(before), len(after), fi.ModTime())
	}
	for _, ext := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + ext); err == nil {
			t.Errorf("%s created", filepath.Base(path+ext))
		}
	}
}

// A database whose session table lacks a needed column is a diagnostic
// naming the file, not a failure; one without a data directory is
// nothing at all.
func TestSchemaProbe(t *testing.T) {
	data := t.TempDir()
	path := filepath.Join(data, "opencode.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE session (id text PRIMARY KEY, title text)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ss, diags := list(t, reader(data), false)
	if len(ss) != 0 || len(diags) != 1 || diags[0].Path != path || !strings.Contains(diags[0].Problem, "no directory column") {
		t.Errorf("sessions %v, diags %+v", ss, diags)
	}
	// Without a message table the sessions still list, their counts
	// unknown.
	db, _ = sql.Open("sqlite", path)
	if _, err := db.Exec("ALTER TABLE session ADD COLUMN directory text; INSERT INTO session VALUES ('ses_a', 'A', '/home/example/a')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ss, diags = list(t, reader(data), false)
	if s := ss["ses_a"]; len(diags) != 0 || s.Cwd != "/home/example/a" || s.Messages != nil || s.Tokens != nil {
		t.Errorf("without message table: %+v %+v", s, diags)
	}
	if _, err := reader(data).Get(context.Background(), ss["ses_a"]); err == nil || !strings.Contains(err.Error(), "no message table") {
		t.Errorf("get without message table: %v", err)
	}
	if ss, diags := list(t, reader(filepath.Join(data, "none")), false); len(ss)+len(diags) != 0 {
		t.Errorf("no data directory: %v %v", ss, diags)
	}
}
