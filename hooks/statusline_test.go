package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
)

func TestStatusLineRealInputs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "samples", "claude-statusline-stdin.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	first, err := ParseStatusLine([]byte(lines[0]))
	if err != nil || !first.HasUsage || first.Tokens != 1136 || first.Window != 1_000_000 || first.ModelName != "Opus 5.5" {
		t.Fatalf("%+v %v", first, err)
	}
	before, _ := ParseStatusLine([]byte(lines[1]))
	if before.HasUsage {
		t.Errorf("null current_usage parsed as usage: %+v", before)
	}
	dir := t.TempDir()
	env := func(string) string { return "" }
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if st, _ := RecordStatusLine(dir, before, agent.Windows{}, env, now); st.UsageKnown || RenderStatusLine(before, st, false) != "Opus 5.5 · ctx –" {
		t.Errorf("before the first reply: %+v %q", st, RenderStatusLine(before, st, false))
	}
	st, err := RecordStatusLine(dir, first, agent.Windows{}, env, now)
	if err != nil || st.ReportedWindow != 1_000_000 || st.Tokens != 1136 || st.IdentityRoot != "/home/example/src/proj" {
		t.Errorf("recorded: %+v %v", st, err)
	}
	if got, err := LatestForRoot(dir, "/home/example/src/proj"); err != nil || got.Tokens != 1136 {
		t.Errorf("index: %+v %v", got, err)
	}
	// Unchanged input: no write.
	fi1, _ := os.Stat(SessionPath(dir, first.SessionID))
	RecordStatusLine(dir, first, agent.Windows{}, env, now.Add(time.Minute))
	if got, _ := LoadSession(dir, first.SessionID); !got.Updated.Equal(now) {
		t.Errorf("rewritten without a change: %v (%v)", got.Updated, fi1.ModTime())
	}
	st.Tokens, st.Percent = 850_000, 85
	line := RenderStatusLine(first, st, true)
	if !strings.Contains(line, "\x1b[31m") || !strings.Contains(line, "85% (850k/1M)") || !strings.Contains(line, "██████▊░") {
		t.Errorf("red line: %q", line)
	}
	st.Percent = 55
	if line := RenderStatusLine(first, st, true); !strings.Contains(line, "\x1b[33m") {
		t.Errorf("yellow: %q", line)
	}
	if line := RenderStatusLine(first, st, false); strings.Contains(line, "\x1b") {
		t.Errorf("colour without color: %q", line)
	}
}
