//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// openCodeSession runs one `opencode run` in dir with prompt on stdin
// and returns the session id it made or continued (args, e.g.
// --session ID, are passed on).
func openCodeSession(t *testing.T, env *harness.Env, dir, prompt string, args ...string) string {
	t.Helper()
	res := env.OpenCodePrompt(context.Background(), harness.CLIs(t).OpenCode, dir, prompt, args...)
	if res.ExitCode != 0 {
		t.Fatalf("opencode run %v in %s: exit %d: %s", args, dir, res.ExitCode, res.Stderr)
	}
	id, err := res.OpenCodeSession()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// gitProject makes a project directory that is a git repository with
// one commit: OpenCode's project id is the repository's root commit.
func gitProject(t *testing.T, env *harness.Env, name string) string {
	t.Helper()
	dir := env.ProjectDir(name)
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.email=e@example.com", "-c", "user.name=e", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(dir+"/notes.txt", []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOpenCodeHarness runs the real OpenCode through the harness: a
// session with a tool call against the fake API, continued once, then
// listed by tether from OpenCode's database.
func TestOpenCodeHarness(t *testing.T) {
	harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := gitProject(t, env, "proj")

	api.Enqueue(fakeapi.CallTool("bash", map[string]any{"command": "echo hi-from-tool && cat notes.txt", "description": "Print a greeting"}).
		Then(fakeapi.Text("tool said hi")))
	id := openCodeSession(t, env, dir, "run the greeting tool please")
	api.Enqueue(fakeapi.Text("second answer"))
	if again := openCodeSession(t, env, dir, "second turn", "--session", id); again != id {
		t.Fatalf("resumed session %s, want %s", again, id)
	}
	var sawFirst bool
	for _, r := range api.Requests() {
		if !r.Side && strings.Contains(string(r.Body), "run the greeting tool please") && strings.Contains(string(r.Body), "second turn") {
			sawFirst = true
		}
	}
	if !sawFirst {
		t.Errorf("the resumed turn's request does not carry the first prompt")
	}
	if _, err := os.Stat(env.OpenCodeDB()); err != nil {
		t.Fatalf("OpenCode wrote no database: %v", err)
	}

	l := listJSON(t, env, "--harness", "opencode")
	if len(l.Sessions) != 1 || l.Sessions[0].ID != id || l.Sessions[0].Harness != "opencode" {
		t.Fatalf("tether lists %+v, want the one OpenCode session %s", l.Sessions, id)
	}
	if got := l.Sessions[0].Cwd; got != dir {
		t.Errorf("cwd = %q, want %q", got, dir)
	}
}
