//go:build e2e

package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// openCodeSessionCount counts the sessions in OpenCode's database, read
// only.
func openCodeSessionCount(t *testing.T, env *harness.Env) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+env.OpenCodeDB()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM session").Scan(&n); err != nil {
		t.Fatalf("%s: %v", env.OpenCodeDB(), err)
	}
	return n
}

// openCodeExport is `opencode export id` (run in dir), parsed.
func openCodeExport(t *testing.T, env *harness.Env, dir, id string) (info map[string]any, messages int, ok bool) {
	t.Helper()
	res := env.OpenCode(context.Background(), harness.CLIs(t).OpenCode, dir, "export", id)
	if res.ExitCode != 0 {
		return nil, 0, false
	}
	var exp struct {
		Info     map[string]any `json:"info"`
		Messages []any          `json:"messages"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &exp); err != nil {
		t.Fatalf("opencode export %s: %v\n%s", id, err, res.Stdout)
	}
	return exp.Info, len(exp.Messages), true
}

// TestOpenCodeArchive: a real OpenCode session is archived by `tether
// archive sync` (its own export), deleted with `opencode session
// delete`, still listed, shown and summarized (provider opencode, which
// adds nothing to OpenCode's history) from the archive, and put back by
// `tether archive restore` through `opencode import`.
func TestOpenCodeArchive(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	api.SetSideClassifier(func(r fakeapi.Request) bool { return !isSummaryRequest(r) && fakeapi.IsSideRequest(r) })
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_OPENCODE_BIN", clis.OpenCode)
	dir := gitProject(t, env, "proj")
	api.Enqueue(fakeapi.CallTool("bash", map[string]any{"command": "echo hi-from-tool && cat notes.txt", "description": "Print a greeting"}).
		Then(fakeapi.Text("tool said hi")))
	id := openCodeSession(t, env, dir, "archive me please")
	_, msgs, ok := openCodeExport(t, env, dir, id)
	if !ok || msgs < 2 {
		t.Fatalf("opencode export %s before: ok=%v, %d messages", id, ok, msgs)
	}

	code, out, errOut := tether(t, env, "archive", "sync")
	if code != 0 || !strings.Contains(out, "1 exported") {
		t.Fatalf("archive sync: exit %d\n%s\n%s", code, out, errOut)
	}
	stored := filepath.Join(env.Home, ".local", "share", "tether", "archive", "opencode", id+".json")
	if fi, err := os.Stat(stored); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stored export %s: %v %v", stored, fi, err)
	}
	// Nothing changed: nothing is exported again.
	if code, out, errOut = tether(t, env, "archive", "sync"); code != 0 || !strings.Contains(out, "0 exported") || !strings.Contains(out, "1 unchanged") {
		t.Fatalf("second archive sync: exit %d\n%s\n%s", code, out, errOut)
	}

	if res := env.OpenCode(context.Background(), clis.OpenCode, dir, "session", "delete", id); res.ExitCode != 0 {
		t.Fatalf("opencode session delete: exit %d: %s", res.ExitCode, res.Stderr)
	}
	if _, _, ok := openCodeExport(t, env, dir, id); ok {
		t.Fatalf("OpenCode still exports %s after delete", id)
	}
	l := listJSON(t, env, "--all", "--harness", "opencode")
	if len(l.Sessions) != 1 || l.Sessions[0].ID != id || l.Sessions[0].State != "archived" || l.Sessions[0].Cwd != dir {
		t.Fatalf("after delete tether lists %+v, want %s archived in %s (diagnostics %+v)", l.Sessions, id, dir, l.Diagnostics)
	}
	code, out, errOut = tether(t, env, "archive", "status", "--json")
	var st struct{ Exported, ArchivedOnly int }
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Exported != 1 || st.ArchivedOnly != 1 {
		t.Fatalf("archive status: exit %d %+v\n%s\n%s", code, st, out, errOut)
	}
	if code, out, errOut = tether(t, env, "sessions", "show", id); code != 0 || !strings.Contains(out, "archive me please") || !strings.Contains(out, "1 tool call") {
		t.Fatalf("show of the archived session: exit %d\n%s\n%s", code, out, errOut)
	}

	// A summary by OpenCode itself, of the archived session: the input
	// from the export, nothing added to OpenCode's database.
	before := openCodeSessionCount(t, env)
	api.Enqueue(fakeapi.Text(e2eSummary))
	res := env.Run(context.Background(), "tether", harness.Tether(t), dir, "sessions", "summarize", "--provider", "opencode", id)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "summarized  Plan the walrus parser") {
		t.Fatalf("summarize: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	reqs := summaryRequests(api)
	if len(reqs) != 1 {
		t.Fatalf("%d summary requests, want 1", len(reqs))
	}
	if r := reqs[0]; len(r.Tools) != 0 || !strings.Contains(r.LastUserText(), "archive me please") {
		t.Errorf("summary request: tools %v, input %.300q", r.Tools, r.LastUserText())
	}
	if after := openCodeSessionCount(t, env); after != before {
		t.Errorf("the summary run added %d sessions to OpenCode's database", after-before)
	}

	if code, _, errOut = tether(t, env, "archive", "restore", id); code != 0 || !strings.Contains(errOut, "restored opencode") {
		t.Fatalf("archive restore: exit %d\n%s", code, errOut)
	}
	list := env.OpenCode(context.Background(), clis.OpenCode, dir, "session", "list", "--format", "json")
	if list.ExitCode != 0 || !strings.Contains(list.Stdout, id) {
		t.Fatalf("opencode session list after restore: exit %d\n%s\n%s", list.ExitCode, list.Stdout, list.Stderr)
	}
	info, got, ok := openCodeExport(t, env, dir, id)
	if !ok || got != msgs || info["directory"] != dir {
		t.Fatalf("opencode export after restore: ok=%v, %d messages (want %d), directory %v (want %s)", ok, got, msgs, info["directory"], dir)
	}
	if l = listJSON(t, env, "--all", "--harness", "opencode"); len(l.Sessions) != 1 || l.Sessions[0].State != "resumable" {
		t.Fatalf("after restore tether lists %+v, want %s resumable", l.Sessions, id)
	}
	// OpenCode has it again: a second restore is refused.
	if code, _, errOut = tether(t, env, "archive", "restore", id); code != 4 {
		t.Fatalf("second restore: exit %d, want 4\n%s", code, errOut)
	}
}
