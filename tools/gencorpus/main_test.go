package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"123": 123, "64K": 64 << 10, "8m": 8 << 20, "1G": 1 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "-1", "0", "1T", "x"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestRunUsageAndGenerate(t *testing.T) {
	for _, args := range [][]string{{}, {"-dir", t.TempDir(), "-sessions", "0"}, {"-dir", t.TempDir(), "-size", "huge"}, {"-bogus"}, {"-dir", t.TempDir(), "extra"}} {
		if code := run(args); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	dir := t.TempDir()
	if code := run([]string{"-dir", dir, "-sessions", "3", "-projects", "1", "-size", "64K", "-claude-only"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	m, _ := filepath.Glob(filepath.Join(dir, ".claude", "projects", "*", "*.jsonl"))
	if len(m) != 3 {
		t.Errorf("%d transcripts, want 3", len(m))
	}
	if _, err := os.Stat(filepath.Join(dir, ".codex", "sessions")); err == nil {
		t.Error("codex sessions with -claude-only")
	}
}
