package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClaudeRetentionPrecedence(t *testing.T) {
	files := map[string]string{}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		if p == "/etc/claude-code/managed-settings.json" && files["deny"] != "" {
			return nil, os.ErrPermission
		}
		return nil, os.ErrNotExist
	}
	if r := claudeRetention("/c", "/p", read); r.days != 30 || r.scope != "" {
		t.Errorf("default: %+v", r)
	}
	files["/c/settings.json"] = `{"cleanupPeriodDays": 90}`
	files["/p/.claude/settings.json"] = `{"cleanupPeriodDays": 14}`
	if r := claudeRetention("/c", "/p", read); r.days != 14 || !strings.HasPrefix(r.scope, "project") {
		t.Errorf("project over user: %+v", r)
	}
	files["/p/.claude/settings.local.json"] = `{"cleanupPeriodDays": 400}`
	files["deny"] = "1"
	r := claudeRetention("/c", "/p", read)
	if r.days != 400 || !strings.HasPrefix(r.scope, "local") || len(r.notes) != 1 || !strings.Contains(r.notes[0], "managed") {
		t.Errorf("local, managed unreadable: %+v", r)
	}
	delete(files, "deny")
	files["/etc/claude-code/managed-settings.json"] = `{"cleanupPeriodDays": 7}`
	if r := claudeRetention("/c", "/p", read); r.days != 7 || !strings.HasPrefix(r.scope, "managed") {
		t.Errorf("managed wins: %+v", r)
	}
}

func TestDoctorRetentionAndArchive(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "settings.json"), []byte(`{"cleanupPeriodDays": 20}`))
	ta.run("doctor")
	out := ta.out.String()
	if !strings.Contains(out, "deletes transcripts after 20 days (cleanupPeriodDays, set in user") || !strings.Contains(out, "protects 3 sessions") {
		t.Fatalf("doctor:\n%s", out)
	}
	before, _ := os.ReadFile(filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "settings.json"))
	ta2 := newTestApp(t)
	ta2.config(t, "[archive]\nenabled = false\n")
	put(t, filepath.Join(ta2.env["CLAUDE_CONFIG_DIR"], "settings.json"), before)
	ta2.run("doctor", "--fix")
	if out := ta2.out.String(); !strings.Contains(out, "warn  retention") || !strings.Contains(out, "archive is disabled") {
		t.Fatalf("disabled archive, 20 days:\n%s", out)
	}
	if after, _ := os.ReadFile(filepath.Join(ta2.env["CLAUDE_CONFIG_DIR"], "settings.json")); string(after) != string(before) {
		t.Fatal("doctor changed Claude Code's settings")
	}
}
