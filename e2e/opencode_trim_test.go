//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// openCodeExportRaw is `opencode export ID` of the real OpenCode, as bytes.
func openCodeExportRaw(t *testing.T, env *harness.Env, dir, id string) []byte {
	t.Helper()
	r := env.OpenCode(context.Background(), harness.CLIs(t).OpenCode, dir, "export", id)
	if r.ExitCode != 0 {
		t.Fatalf("opencode export %s: exit %d: %s", id, r.ExitCode, r.Stderr)
	}
	return []byte(r.Stdout)
}

type ocExport struct {
	Messages []struct {
		Info struct {
			ID, Role, Finish string
			Summary          any
			Error            any
		}
		Parts []struct{ Type, Text string }
	}
}

func parseOCExport(t *testing.T, b []byte) ocExport {
	t.Helper()
	var e ocExport
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("export: %v\n%s", err, b)
	}
	return e
}

// summaries counts the good and the failed compaction summaries.
func (e ocExport) summaries() (good, failed int) {
	for _, m := range e.Messages {
		if m.Info.Summary != true {
			continue
		}
		if m.Info.Finish == "error" || m.Info.Error != nil {
			failed++
		} else {
			good++
		}
	}
	return good, failed
}

// (a) A prompt the API refuses as too long is compacted by OpenCode
// itself, and the session goes on: nothing for tether to do.
func TestOpenCodeTrimOverflowCompactsItself(t *testing.T) {
	harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := gitProject(t, env, "proj")
	id := openCodeSession(t, env, dir, "first prompt")
	api.Enqueue(fakeapi.PromptTooLong(250000, 200000))
	// OpenCode exits 1 after any error event, even one it recovered from.
	env.OpenCodePrompt(context.Background(), harness.CLIs(t).OpenCode, dir, "second prompt overflows", "--session", id)
	if good, failed := parseOCExport(t, openCodeExportRaw(t, env, dir, id)).summaries(); good != 1 || failed != 0 {
		t.Fatalf("summaries: %d good, %d failed; want OpenCode's own compaction", good, failed)
	}
	if again := openCodeSession(t, env, dir, "third prompt after compaction", "--session", id); again != id {
		t.Errorf("continued %s, want %s", again, id)
	}
}

// (b) tether trim ID --compact: OpenCode compacts the session through
// the server tether starts and stops.
func TestOpenCodeTrimCompact(t *testing.T) {
	harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_OPENCODE_BIN", harness.CLIs(t).OpenCode)
	dir := gitProject(t, env, "proj")
	id := openCodeSession(t, env, dir, "first prompt")
	openCodeSession(t, env, dir, "second prompt", "--session", id)
	if good, _ := parseOCExport(t, openCodeExportRaw(t, env, dir, id)).summaries(); good != 0 {
		t.Fatalf("a summary before the compaction")
	}
	code, out, errOut := tether(t, env, "trim", id, "--compact")
	if code != 0 || !strings.Contains(out, "compacted "+id) {
		t.Fatalf("trim --compact: exit %d\n%s%s", code, out, errOut)
	}
	if good, failed := parseOCExport(t, openCodeExportRaw(t, env, dir, id)).summaries(); good != 1 || failed != 0 {
		t.Errorf("summaries after --compact: %d good, %d failed", good, failed)
	}
	if pids := serversOf(env); len(pids) > 0 {
		t.Errorf("opencode serve left running: %v", pids)
	}
}

// serversOf are the `opencode serve` processes running with env's HOME.
func serversOf(env *harness.Env) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmd), "\x00serve\x00") {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if strings.Contains(string(environ), "HOME="+env.Home+"\x00") {
			out = append(out, e.Name())
		}
	}
	return out
}

// (c) A session whose compaction fails too (every request too long):
// --fork-keep 1 makes a new session of its last turn, which resumes
// with that turn's prompt and without the dropped one's; the original's
// export is unchanged.
func TestOpenCodeTrimForkKeep(t *testing.T) {
	harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_OPENCODE_BIN", harness.CLIs(t).OpenCode)
	var failing atomic.Bool
	api.SetSideClassifier(func(r fakeapi.Request) bool { return !failing.Load() && fakeapi.IsSideRequest(r) })
	api.SetResponder(func(fakeapi.Request) (fakeapi.Reply, bool) {
		if failing.Load() {
			return fakeapi.PromptTooLong(250000, 200000), true
		}
		return fakeapi.Text("fine"), true
	})
	dir := gitProject(t, env, "proj")
	id := openCodeSession(t, env, dir, "first-dropped-prompt")
	failing.Store(true)
	r := env.OpenCodePrompt(context.Background(), harness.CLIs(t).OpenCode, dir, "second-kept-prompt", "--session", id)
	failing.Store(false)
	before := openCodeExportRaw(t, env, dir, id)
	if _, failed := parseOCExport(t, before).summaries(); failed == 0 {
		t.Fatalf("OpenCode's compaction did not fail (exit %d): %s", r.ExitCode, before)
	}
	code, out, errOut := tether(t, env, "trim", id, "--fork-keep", "1", "--json")
	if code != 0 {
		t.Fatalf("trim --fork-keep 1: exit %d\n%s%s", code, out, errOut)
	}
	var f struct{ Fork, Directory string }
	if err := json.Unmarshal([]byte(out), &f); err != nil || !strings.HasPrefix(f.Fork, "ses_") || f.Directory != dir {
		t.Fatalf("trim --json: %v %q", err, out)
	}
	if after := openCodeExportRaw(t, env, dir, id); string(after) != string(before) {
		t.Errorf("the original's export changed")
	}
	api.Reset()
	if again := openCodeSession(t, env, dir, "third-resume-prompt", "--session", f.Fork); again != f.Fork {
		t.Fatalf("resumed %s, want %s", again, f.Fork)
	}
	var sent bool
	for _, req := range api.ModelRequests() {
		body := string(req.Body)
		if !strings.Contains(body, "third-resume-prompt") {
			continue
		}
		sent = true
		if !strings.Contains(body, "second-kept-prompt") || strings.Contains(body, "first-dropped-prompt") {
			t.Errorf("the fork's resume sends the wrong history: %s", req.UserTexts())
		}
	}
	if !sent {
		t.Errorf("no request carried the resumed prompt")
	}
}
