package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// listMessages runs `sessions list --json` and returns each session's
// message count by key ("unknown" when absent).
func listMessages(t *testing.T, ta *testApp) map[string]string {
	t.Helper()
	ta.out.Reset()
	if code := ta.run("sessions", "list", "--json"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	m := validate(t, "list", ta.out.Bytes())
	got := map[string]string{}
	for _, s := range m["sessions"].([]any) {
		s := s.(map[string]any)
		n, ok := s["messages"]
		if !ok {
			got[fmt.Sprint(s["harness"], ":", s["id"])] = "unknown"
			continue
		}
		got[fmt.Sprint(s["harness"], ":", s["id"])] = fmt.Sprint(n)
	}
	return got
}

// showMessages is `sessions show --json`'s message count.
func showMessages(t *testing.T, ta *testApp, key string) string {
	t.Helper()
	ta.out.Reset()
	if code := ta.run("sessions", "show", "--json", key); code != 0 {
		t.Fatalf("show %s: exit %d %s", key, code, ta.err)
	}
	m := validate(t, "show", ta.out.Bytes())
	c := m["counts"].(map[string]any)
	if fmt.Sprint(c["messages"]) != fmt.Sprint(m["messages"]) {
		t.Errorf("show %s: counts.messages %v, messages %v", key, c["messages"], m["messages"])
	}
	return fmt.Sprint(c["messages"])
}

// msgsTranscript is a Claude transcript larger than a list reads.
func msgsTranscript(id string, turns int) []byte {
	var b bytes.Buffer
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for i := range turns {
		ts := t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		u, _ := json.Marshal(map[string]any{"type": "user", "sessionId": id, "cwd": "/home/example/src/big", "timestamp": ts,
			"message": map[string]any{"role": "user", "content": fmt.Sprintf("prompt %d %s", i, strings.Repeat("pad ", 2000))}})
		a, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": id, "cwd": "/home/example/src/big", "timestamp": ts,
			"message": map[string]any{"role": "assistant", "id": fmt.Sprintf("msg_%d", i), "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "text", "text": "ok"}}, "usage": map[string]any{"input_tokens": 10}}})
		b.Write(u)
		b.WriteByte('\n')
		b.Write(a)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestSessionsListMessageCounts: the list's message count is show's for
// transcripts it reads whole; a bigger one is unknown (no key in --json,
// "-" in the table, a hint on a terminal) until `sessions index` has
// counted it.
func TestSessionsListMessageCounts(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	const bigID = "b1b1b1b1-0000-4000-8000-000000000001"
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-big", bigID+".jsonl"), msgsTranscript(bigID, 40))
	got := listMessages(t, ta)
	for _, key := range []string{"claude-code:" + claudeNew, "claude-code:" + claudeOld, "codex:" + codexID} {
		if want := showMessages(t, ta, key); got[key] != want {
			t.Errorf("%s: list %s, show %s", key, got[key], want)
		}
	}
	if got["claude-code:"+bigID] != "unknown" {
		t.Fatalf("a transcript not read whole has a count: %v", got)
	}
	// The table: MSGS, "-" when unknown; piped, no hint.
	ta.out.Reset()
	ta.err.Reset()
	ta.run("sessions", "list")
	if !strings.Contains(ta.out.String(), "MSGS") || strings.Contains(ta.err.String(), "sessions index") {
		t.Fatalf("piped table:\n%s\nstderr: %s", ta.out, ta.err)
	}
	// On a terminal, one hint says how to fill them.
	ta.IO.StdoutTTY, ta.IO.StderrTTY = true, true
	ta.env["COLUMNS"] = "200"
	ta.err.Reset()
	ta.run("sessions", "list")
	if !strings.Contains(ta.err.String(), "tether sessions index") {
		t.Errorf("no hint on a terminal: %q", ta.err)
	}
	ta.IO.StdoutTTY, ta.IO.StderrTTY = false, false
	// `sessions index` builds the search index, which counts every
	// transcript; the list takes the counts from it.
	if code := ta.run("sessions", "index", "extra"); code != 2 {
		t.Errorf("index with an argument: exit %d, want 2", code)
	}
	ta.out.Reset()
	if code := ta.run("sessions", "index"); code != 0 || !strings.Contains(ta.out.String(), "indexed 4 sessions") {
		t.Fatalf("index: exit %d %s %s", code, ta.out, ta.err)
	}
	got = listMessages(t, ta)
	if want := showMessages(t, ta, "claude-code:"+bigID); got["claude-code:"+bigID] != want || want != "80" {
		t.Errorf("after index: list %s, show %s, want 80", got["claude-code:"+bigID], want)
	}
	// Remembered in the catalog cache: still known with the index gone.
	if err := os.Remove(filepath.Join(ta.env["XDG_CACHE_HOME"], "tether", "search.db")); err != nil {
		t.Fatal(err)
	}
	if got = listMessages(t, ta); got["claude-code:"+bigID] != "80" {
		t.Errorf("without the index: %s", got["claude-code:"+bigID])
	}
}

// The table's MSGS column: the count, or "-" when unknown.
func TestSessionTableMessages(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ss := tableSessions(now)
	n := 1234
	ss[1].Messages = &n
	var b bytes.Buffer
	printSessionTable(&b, ss, now, tableStyle{}, nil, nil)
	lines := strings.Split(b.String(), "\n")
	col := slices.Index(strings.Fields(lines[0]), "MSGS")
	if col < 0 || strings.Fields(lines[1])[col] != "-" || strings.Fields(lines[2])[col] != "1234" {
		t.Fatalf("MSGS column:\n%s", b.String())
	}
	// A narrow terminal gives MSGS up before the title goes under its
	// minimum.
	b.Reset()
	printSessionTable(&b, ss, now, tableStyle{Width: 60}, nil, nil)
	if strings.Contains(b.String(), "MSGS") {
		t.Errorf("narrow terminal kept MSGS:\n%s", b.String())
	}
}
