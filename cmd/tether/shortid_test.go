package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/wrap"
)

// Three Codex threads started in the same minute: UUIDv7 ids sharing
// their first eight characters.
var sameMinute = []string{
	"01a22e82-1c40-7a11-9ee8-1fcd43d77fc1",
	"01a22e82-5d02-7b22-8ee8-1fcd43d77fc2",
	"01a22e82-5d9a-7c33-aee8-1fcd43d77fc3",
}

func withSameMinuteCodex(t *testing.T, ta *testApp) {
	t.Helper()
	src := sample(t, "codex-0.171.0", "sample-rollout-tool-resume.jsonl")
	for i, id := range sameMinute {
		put(t, filepath.Join(ta.env["CODEX_HOME"], "sessions", "2026", "11", "30",
			"rollout-2026-11-30T11-02-3"+string(rune('0'+i))+"-"+id+".jsonl"), bytes.ReplaceAll(src, []byte(codexID), []byte(id)))
	}
}

// TestShortIDsAreUnique: list, search and log show each session by its
// shortest unique prefix (at least eight characters), and show accepts it.
func TestShortIDsAreUnique(t *testing.T) {
	ta := newTestApp(t)
	withSameMinuteCodex(t, ta)
	want := []string{"01a22e82-1", "01a22e82-5d0", "01a22e82-5d9"}
	if code := ta.run("sessions", "list"); code != 0 {
		t.Fatalf("list: exit %d %s", code, ta.err)
	}
	for _, w := range want {
		if !strings.Contains(ta.out.String(), "  "+w+"  ") {
			t.Errorf("list lacks %q:\n%s", w, ta.out)
		}
	}
	ta.out.Reset()
	if code := ta.run("sessions", "search", "again"); code != 0 {
		t.Fatalf("search: exit %d %s", code, ta.err)
	}
	for _, w := range want {
		if !strings.Contains(ta.out.String(), w+"  codex") {
			t.Errorf("search lacks %q:\n%s", w, ta.out)
		}
	}
	for i, w := range want {
		ta.out.Reset()
		if code := ta.run("sessions", "show", w); code != 0 || !strings.Contains(ta.out.String(), sameMinute[i]) {
			t.Errorf("show %s: exit %d %s", w, code, ta.err)
		}
	}
	// The log abbreviates over the sessions tether knows (the completion
	// index the listing above refreshed), without scanning the catalog.
	log := eventlog.Open(eventlog.Options{Path: state.EventLogPath(ta.Loc.StateDir)})
	for _, id := range sameMinute {
		log.With("codex", "/home/example").Info("spawn", id)
	}
	ta.out.Reset()
	if code := ta.run("log"); code != 0 {
		t.Fatalf("log: exit %d %s", code, ta.err)
	}
	for _, w := range want {
		if !strings.Contains(ta.out.String(), " "+w+" ") {
			t.Errorf("log lacks %q:\n%s", w, ta.out)
		}
	}
}

// TestExitLineAbbreviatesAmongSiblings: the wrapper's exit line names the
// session by a prefix no other transcript of its project shares.
func TestExitLineAbbreviatesAmongSiblings(t *testing.T) {
	ta := newTestApp(t)
	fake := filepath.Join(ta.home, "bin", "claude")
	put(t, fake, []byte("#!/bin/sh\n"))
	os.Chmod(fake, 0o755)
	ta.env["TETHER_CLAUDE_BIN"] = fake
	ta.IO.StderrTTY = true
	const id = "d9f7843f-07d6-4b50-9048-40676f77f965"
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-proj")
	put(t, filepath.Join(proj, id+".jsonl"), []byte("{}\n"))
	put(t, filepath.Join(proj, "d9f7843f-0aaa-4b50-9048-40676f77f965.jsonl"), []byte("{}\n"))
	ta.exec = func(c wrap.Child) (int, error) {
		return 0, state.Save(ta.Loc.StateDir, state.Session{SessionID: id, IdentityRoot: ta.Root().Path,
			TranscriptPath: filepath.Join(proj, id+".jsonl"), UsageKnown: false, Updated: time.Now()})
	}
	if code := ta.run("run", "claude"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	if !strings.HasPrefix(ta.err.String(), "tether: session d9f7843f-07 ·") {
		t.Errorf("exit line %q", ta.err.String())
	}
}
