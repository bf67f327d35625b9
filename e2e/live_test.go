//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestOpenClaudeLeavesItsNeighboursResumable: an interactive Claude Code
// 2.1.332 open on session A (its sessions/<pid>.json names A) in a
// directory that also holds session B, written a moment ago. A is
// running; B is not "running (possibly)" because of A's process: list and
// show say resumable, `tether sessions resume B` is not refused, and the
// picker's Enter on B resumes it.
func TestOpenClaudeLeavesItsNeighboursResumable(t *testing.T) {
	clis := harness.CLIs(t)
	harness.RequireTmux(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("neighbours")
	env.SeedClaudeJSON(dir)

	api.Enqueue(fakeapi.Text("bee answer"))
	b := claudeP(t, env, clis.Claude, dir, "-p", "session bee")

	const reply = "Pong from session A."
	api.Enqueue(fakeapi.Text(reply))
	tm := env.StartTmux(dir, clis.Claude)
	tm.WaitFor("❯", 30*time.Second)
	tm.SendText("say pong")
	tm.SendKeys("Enter")
	tm.WaitFor(reply, 60*time.Second)

	// A is the session its pid file names.
	a := ""
	for deadline := time.Now().Add(20 * time.Second); a == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, s := range listJSON(t, env).Sessions {
			if s.ID != b && s.State == "running" {
				a = s.ID
			}
		}
	}
	if a == "" {
		matches, _ := filepath.Glob(filepath.Join(env.ClaudeConfigDir, "sessions", "*.json"))
		t.Fatalf("no running session besides %s; pid files %v; sessions %+v", b, matches, listJSON(t, env).Sessions)
	}
	bCwd := dir
	for _, s := range listJSON(t, env).Sessions {
		if s.ID == b {
			bCwd = s.Cwd
		}
		if s.ID == b && (s.State != "resumable" || s.Runtime != nil) {
			t.Errorf("B (%s) is %s with runtime %+v while A (%s) runs in its directory", b, s.State, s.Runtime, a)
		}
	}
	if code, out, _ := tether(t, env, "sessions", "show", b); code != 0 || !strings.Contains(out, "state:         resumable") {
		t.Errorf("show B: exit %d\n%s", code, out)
	}

	// Resuming B is not refused: the wrapper runs (a recording) claude.
	bin := filepath.Join(t.TempDir(), "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(recorder), 0o755); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "record")
	env.Setenv("TETHER_CLAUDE_BIN", filepath.Join(bin, "claude"))
	env.Setenv("PICK_RECORD", record)
	r := env.Run(context.Background(), "sessions resume B", harness.Tether(t), dir, "sessions", "resume", b)
	want := bCwd + "\n--resume\n" + b + "\n"
	if data, _ := os.ReadFile(record); r.ExitCode != 0 || string(data) != want {
		t.Errorf("sessions resume B: exit %d, stderr %q; the claude it ran recorded %q, want %q", r.ExitCode, r.Stderr, data, want)
	}
	// A itself is still refused.
	if r := env.Run(context.Background(), "sessions resume A", harness.Tether(t), dir, "sessions", "resume", a); r.ExitCode != 4 || !strings.Contains(r.Stderr, "is running") {
		t.Errorf("sessions resume A (running): exit %d %q", r.ExitCode, r.Stderr)
	}

	// The picker resumes B on Enter.
	os.Remove(record)
	pick := env.StartTmux(dir, harness.Tether(t), "pick")
	pick.WaitFor("tether pick", pickWait)
	pick.SendText(b)
	if screen, ok := pick.WaitUntil(func(s string) bool { return strings.Contains(s, " 1/") && !strings.Contains(s, "refreshing") }, pickWait); !ok {
		t.Fatalf("typing B's id did not narrow to it:\n%s", screen)
	}
	pick.SendKeys("Enter")
	var data []byte
	for deadline := time.Now().Add(pickWait); len(data) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		data, _ = os.ReadFile(record)
	}
	if string(data) != want {
		t.Errorf("the picker's Enter on B ran %q, want %q; screen:\n%s", data, want, pick.Capture())
	}
	pick.Kill()

	tm.SendText("/exit")
	tm.SendKeys("Enter")
	tm.WaitExit(30 * time.Second)
}
