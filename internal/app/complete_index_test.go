package app

import (
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/shellinit"
)

// TestCompletionIndexFromCatalog: the background refresh and `tether
// sessions list` both build the index from the real catalog, and TAB after
// claude --resume then offers the real Claude sessions.
func TestCompletionIndexFromCatalog(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	if code := ta.run("complete", "--refresh-index"); code != 0 {
		t.Fatalf("refresh: %s", ta.err)
	}
	out, code := completeOut(t, ta, "--shell", "bash", "--", "claude", "--resume", "")
	ids := strings.Fields(out)
	if code != 0 || len(ids) != 2 || !containsStr(ids, claudeNew) || !containsStr(ids, claudeOld) {
		t.Errorf("claude --resume: code %d out %q, want the Claude ids only", code, out)
	}
	out, _ = completeOut(t, ta, "--shell", "fish", "--", "tether", "sessions", "show", "01a2")
	if !strings.HasPrefix(out, codexID+"\tcodex · ") {
		t.Errorf("sessions show: %q", out)
	}

	os.Remove(shellinit.IndexPath(ta.Loc.CacheDir))
	ta.out.Reset()
	if code := ta.run("sessions", "list", "--limit", "1"); code != 0 {
		t.Fatalf("sessions list: %s", ta.err)
	}
	entries, err := shellinit.ReadIndex(shellinit.IndexPath(ta.Loc.CacheDir))
	if err != nil || len(entries) != 3 {
		t.Errorf("index after sessions list (--limit does not shrink it): %v %d", err, len(entries))
	}
	os.Remove(shellinit.IndexPath(ta.Loc.CacheDir))
	ta.run("sessions", "list", "--harness", "codex")
	if _, err := os.Stat(shellinit.IndexPath(ta.Loc.CacheDir)); err == nil {
		t.Error("a one-harness listing replaced the index")
	}
}
