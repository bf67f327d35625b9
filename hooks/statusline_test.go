package hooks

import (
	"fmt"
	"github.com/tether-dev/tether/internal/todayspend"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/state"
)

func TestStatusLineRealInputs(t *testing.T) {
	data, err := os.ReadFile(testutil.Testdata(t, "claude-code-2.1.332", "sample-statusline-stdin.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	first, err := claude.New("").ParseStatusLine([]byte(lines[0]))
	if err != nil || !first.HasUsage || first.Tokens != 1136 || first.Window != 1_000_000 || first.ModelName != "Opus 5.5" {
		t.Fatalf("%+v %v", first, err)
	}
	before, _ := claude.New("").ParseStatusLine([]byte(lines[1]))
	if before.HasUsage {
		t.Errorf("null current_usage parsed as usage: %+v", before)
	}
	dir := t.TempDir()
	env := func(string) string { return "" }
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if st, _ := RecordStatusLine(dir, before, agent.Windows{}, env, now); st.UsageKnown || RenderStatusLine(before, st, StatusOptions{}) != "Opus 5.5 · ctx –" {
		t.Errorf("before the first reply: %+v %q", st, RenderStatusLine(before, st, StatusOptions{}))
	}
	st, err := RecordStatusLine(dir, first, agent.Windows{}, env, now)
	if err != nil || st.ReportedWindow != 1_000_000 || st.Tokens != 1136 || st.IdentityRoot != "/home/example/src/proj" {
		t.Errorf("recorded: %+v %v", st, err)
	}
	if got, err := state.LatestForRoot(dir, "/home/example/src/proj"); err != nil || got.Tokens != 1136 {
		t.Errorf("index: %+v %v", got, err)
	}
	// Unchanged input: no write.
	fi1, _ := os.Stat(state.SessionPath(dir, first.SessionID))
	RecordStatusLine(dir, first, agent.Windows{}, env, now.Add(time.Minute))
	if got, _ := state.LoadSession(dir, first.SessionID); !got.Updated.Equal(now) {
		t.Errorf("rewritten without a change: %v (%v)", got.Updated, fi1.ModTime())
	}
	st.Tokens, st.Percent = 850_000, 85
	line := RenderStatusLine(first, st, StatusOptions{Color: true})
	if !strings.Contains(line, "\x1b[31m") || !strings.Contains(line, "85% (850k/1M)") || !strings.Contains(line, "██████▊░") {
		t.Errorf("red line: %q", line)
	}
	st.Percent = 65
	if line := RenderStatusLine(first, st, StatusOptions{Color: true}); !strings.Contains(line, "\x1b[33m") {
		t.Errorf("yellow: %q", line)
	}
	if line := RenderStatusLine(first, st, StatusOptions{}); strings.Contains(line, "\x1b") {
		t.Errorf("colour without color: %q", line)
	}
}

// Issue 13 item 8: a model name from the payload cannot put controls on
// Claude Code's status line.
func TestStatusLineEscapesModelName(t *testing.T) {
	out := RenderStatusLine(agent.StatusInput{ModelName: "Opus\x1b]0;pwned\x07\u202e"}, state.Session{}, StatusOptions{})
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("raw controls: %q", out)
	}
}

func TestStatusLineSegments(t *testing.T) {
	data, err := os.ReadFile(testutil.Testdata(t, "claude-code-2.1.332", "sample-statusline-stdin.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := claude.New("").ParseStatusLine([]byte(strings.SplitN(string(data), "\n", 2)[0]))
	if err != nil || !in.HasCost || in.CostUSD < 0.003 || in.CostUSD > 0.004 {
		t.Fatalf("cost: %+v %v", in, err)
	}
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o700)
	os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/feat/\x1b[31mx\n"), 0o600)
	in.Cwd = filepath.Join(repo, "sub", "dir")
	st := state.Session{UsageKnown: true, Percent: 0.1136, Tokens: 1136, Window: 1_000_000}
	got := RenderStatusLine(in, st, StatusOptions{Segments: []string{"context", "branch", "cost", "model"}})
	want := `ctx ░░░░░░░░ 0.1% (1.1k/1M) · ⎇ feat/\x1b[31mx · $0.00 · Opus 5.5`
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A worktree's .git is a file naming the git dir; detached HEAD shows a short commit.
	wt, gd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o600)
	os.WriteFile(filepath.Join(gd, "HEAD"), []byte("0123456789abcdef\n"), 0o600)
	if b := GitBranch(wt); b != "0123456" {
		t.Errorf("detached worktree: %q", b)
	}
	if b := GitBranch(t.TempDir()); b != "" {
		t.Errorf("outside a repository: %q", b)
	}
	// No branch, no cost: the segments are left out, not drawn empty.
	in.Cwd, in.HasCost = t.TempDir(), false
	if got := RenderStatusLine(in, st, StatusOptions{Segments: []string{"model", "branch", "cost"}}); got != "Opus 5.5" {
		t.Errorf("empty segments: %q", got)
	}
}

// The gauge is written by concatenation: the very bytes fmt wrote, for
// every eighth of the bar, with and without colour.
func TestStatusLineGaugeBytes(t *testing.T) {
	byFmt := func(st state.Session, color bool) string {
		full := max(0, min(int(st.Percent/100*8*8), 64))
		var bar strings.Builder
		for i := 0; i < 8; i++ {
			switch n := full - i*8; {
			case n >= 8:
				bar.WriteRune('█')
			case n > 0:
				bar.WriteRune([]rune("▏▎▍▌▋▊▉")[n-1])
			default:
				bar.WriteRune('░')
			}
		}
		text := fmt.Sprintf("%s %s%% %s", bar.String(), gauge.Pct(st.Percent), "("+gauge.Tokens(st.Tokens)+"/"+gauge.Tokens(st.Window)+")")
		if color {
			text = ansiColour[gauge.Default.Colour(st.Percent)] + text + "\x1b[0m"
		}
		return "ctx " + text
	}
	for p := -5.0; p <= 105; p += 0.7 {
		st := state.Session{UsageKnown: true, Percent: p, Tokens: int64(p * 10_000), Window: 1_000_000}
		for _, color := range []bool{false, true} {
			if got, want := renderContext(st, StatusOptions{Color: color}), byFmt(st, color); got != want {
				t.Errorf("%v%%: %q, fmt wrote %q", p, got, want)
			}
		}
	}
}

// The today segment shows the spend the last usage count kept, only when
// it is of today, and reads nothing else.
func TestStatusLineTodaySegment(t *testing.T) {
	f := filepath.Join(t.TempDir(), "usage-today")
	o := StatusOptions{Segments: []string{"model", "today"}, TodayFile: f, Today: "2026-03-01"}
	in := agent.StatusInput{ModelName: "Opus"}
	if got := RenderStatusLine(in, state.Session{}, o); got != "Opus" {
		t.Fatalf("no count kept: %q", got)
	}
	if err := todayspend.Write(f, todayspend.Spend{Date: "2026-03-01", CostUSD: 12.345, Tokens: 9}); err != nil {
		t.Fatal(err)
	}
	if got := RenderStatusLine(in, state.Session{}, o); got != "Opus · $12.35 today" {
		t.Fatalf("got %q", got)
	}
	o.Today = "2026-03-02"
	if got := RenderStatusLine(in, state.Session{}, o); got != "Opus" {
		t.Fatalf("yesterday's count shown: %q", got)
	}
}
