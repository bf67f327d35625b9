//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestPickEnterAfterANewerSessionAppears: Claude Code 2.1.332 makes
// session 1 in a directory; the first `tether pick` there (no snapshot) is
// scoped to the directory. Then session 2 is made; the next pick paints
// the snapshot (session 1 on top) and the background listing adds
// session 2 above it. Enter resumes session 2, the top row the user sees
// selected, not session 1.
func TestPickEnterAfterANewerSessionAppears(t *testing.T) {
	clis := harness.CLIs(t)
	harness.RequireTmux(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("fresh-first")
	api.Enqueue(fakeapi.Text("one"))
	first := claudeP(t, env, clis.Claude, dir, "-p", "the first session")

	bin := filepath.Join(t.TempDir(), "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(recorder), 0o755); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "record")
	env.Setenv("TETHER_CLAUDE_BIN", filepath.Join(bin, "claude"))
	env.Setenv("PICK_RECORD", record)

	// First open: nothing to paint until the listing; then scoped here.
	tm := env.StartTmux(dir, harness.Tether(t), "pick")
	screen, ok := tm.WaitUntil(func(s string) bool { return strings.Contains(s, first[:8]) && !strings.Contains(s, "refreshing") }, pickWait)
	if !ok || !strings.Contains(screen, "sessions in ") {
		t.Errorf("the first open in a directory with a session is not scoped to it:\n%s", screen)
	}
	tm.SendKeys("Escape")
	tm.WaitExit(pickWait)
	tm.Kill()

	api.Enqueue(fakeapi.Text("two"))
	second := claudeP(t, env, clis.Claude, dir, "-p", "the second session")
	cwd := ""
	for _, s := range listJSON(t, env).Sessions {
		if s.ID == second {
			cwd = s.Cwd
		}
	}

	tm = env.StartTmux(dir, harness.Tether(t), "pick")
	screen, ok = tm.WaitUntil(func(s string) bool { return strings.Contains(s, second[:8]) && !strings.Contains(s, "refreshing") }, pickWait)
	if !ok {
		t.Fatalf("the listing did not add the second session:\n%s", screen)
	}
	tm.SendKeys("Enter")
	var data []byte
	for deadline := time.Now().Add(pickWait); len(data) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		data, _ = os.ReadFile(record)
		if len(data) == 0 && strings.Contains(tm.Capture(), "press the key again") {
			// The Enter came within a moment of the refresh: held once.
			tm.SendKeys("Enter")
		}
	}
	if want := cwd + "\n--resume\n" + second + "\n"; string(data) != want {
		t.Errorf("Enter on the top row ran %q, want the second (newest) session %q; screen:\n%s", data, want, tm.Capture())
	}
}
