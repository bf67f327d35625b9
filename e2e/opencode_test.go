//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

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

// openCodeRows reads the rows of session id from OpenCode's database,
// read-only, as JSONL in the samples' form: the session row, its
// messages and its parts in order, each with "_table" and the JSON
// columns parsed.
func openCodeRows(t *testing.T, env *harness.Env, id string) []byte {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+env.OpenCodeDB()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out bytes.Buffer
	for _, q := range []struct{ table, where string }{
		{"session", "id = ? ORDER BY id"},
		{"message", "session_id = ? ORDER BY time_created, id"},
		{"part", "session_id = ? ORDER BY message_id, id"},
	} {
		rows, err := db.Query("SELECT * FROM "+q.table+" WHERE "+q.where, id)
		if err != nil {
			t.Fatalf("%s: %v", env.OpenCodeDB(), err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out.WriteString(rowJSON(t, q.table, cols, vals))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out.Bytes()
}

// rowJSON is one row as a JSON line, keys in column order after
// "_table"; text that is a JSON object or array is kept as JSON.
func rowJSON(t *testing.T, table string, cols []string, vals []any) string {
	t.Helper()
	var b strings.Builder
	k, _ := json.Marshal(table)
	b.WriteString(`{"_table":` + string(k))
	for i, c := range cols {
		v := vals[i]
		if s, ok := v.([]byte); ok {
			v = string(s)
		}
		var raw []byte
		if s, ok := v.(string); ok && (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && json.Valid([]byte(s)) {
			raw = []byte(s)
		} else {
			raw, _ = json.Marshal(v)
		}
		name, _ := json.Marshal(c)
		b.WriteString("," + string(name) + ":" + string(raw))
	}
	b.WriteString("}\n")
	return b.String()
}

// TestOpenCode runs the real OpenCode through the harness: a
// session with a tool call against the fake API, continued once, then
// listed by tether from OpenCode's database.
func TestOpenCode(t *testing.T) {
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
	golden(t, env, "opencode-"+harness.OpenCodeVersion+"/golden-db-session-tool-resume.jsonl", env.OpenCodeDB(), openCodeRows(t, env, id))
}
