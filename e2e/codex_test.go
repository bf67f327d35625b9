//go:build e2e

package e2e

// Codex CLI scenarios: what `codex exec` writes (rollout, state DB row,
// hook payloads) and how it fails.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// codexExecFlags: exec outside a git repo, and run the hooks without the
// trust review (test-only; never on a user's behalf).
var codexExecFlags = []string{"--skip-git-repo-check", "--dangerously-bypass-hook-trust"}

var codexHookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PostModelRequest"}

// installCodexHookRecorder writes $CODEX_HOME/hooks.json appending each
// payload to $HOME/codex-hook-payloads.jsonl, and returns that path.
func installCodexHookRecorder(t *testing.T, env *harness.Env) string {
	t.Helper()
	// Codex runs hooks concurrently: one locked write per payload, so
	// lines never interleave.
	cmd := `t=$(mktemp); cat > "$t"; { flock 9; cat "$t" >> "$HOME/codex-hook-payloads.jsonl"; echo >> "$HOME/codex-hook-payloads.jsonl"; } 9>>"$HOME/codex-hook-payloads.lock"; rm -f "$t"`
	hooks := map[string]any{}
	for _, ev := range codexHookEvents {
		group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 10}}}
		if ev == "PreToolUse" || ev == "PostToolUse" {
			group["matcher"] = "*"
		}
		hooks[ev] = []any{group}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err := os.WriteFile(filepath.Join(env.CodexHome, "hooks.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("installed hook recorder for %v in %s/hooks.json", codexHookEvents, env.CodexHome)
	return filepath.Join(env.Home, "codex-hook-payloads.jsonl")
}

// rolloutPathRe is sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl.
var rolloutPathRe = regexp.MustCompile(`^sessions/(\d{4})/(\d{2})/(\d{2})/rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$`)

// checkRolloutPath checks a rollout's place and name (local start time,
// day directories of that date, thread id) and returns the thread id.
func checkRolloutPath(t *testing.T, env *harness.Env, path string, started time.Time) string {
	t.Helper()
	rel, err := filepath.Rel(env.CodexHome, path)
	if err != nil {
		t.Fatal(err)
	}
	m := rolloutPathRe.FindStringSubmatch(filepath.ToSlash(rel))
	if m == nil {
		t.Fatalf("rollout %s does not match sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl", path)
	}
	if m[1] != m[4] || m[2] != m[5] || m[3] != m[6] {
		t.Errorf("rollout %s: day directories do not match the file's date", path)
	}
	ts, err := time.ParseInLocation("2006-01-02T15-04-05", fmt.Sprintf("%s-%s-%sT%s-%s-%s", m[4], m[5], m[6], m[7], m[8], m[9]), time.Local)
	if err != nil {
		t.Fatalf("rollout %s: timestamp: %v", path, err)
	}
	if d := ts.Sub(started); d < -2*time.Second || d > 2*time.Minute {
		t.Errorf("rollout %s: timestamp %v is not the (local) start time %v", path, ts, started)
	}
	return m[10]
}

// checkRollout parses a rollout and checks its session_meta; it fails on
// a line that is not JSON or lacks type/payload, naming file and line.
func checkRollout(t *testing.T, path, thread, cwd string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for n, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("%s line %d: not JSON: %v", path, n+1, err)
			continue
		}
		typ, _ := m["type"].(string)
		if _, ok := m["payload"].(map[string]any); !ok || typ == "" || m["timestamp"] == nil {
			t.Errorf("%s line %d: record without timestamp/type/payload: %.200s", path, n+1, l)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		t.Fatalf("rollout %s is empty", path)
	}
	if out[0]["type"] != "session_meta" {
		t.Errorf("%s line 1: type %v, want session_meta", path, out[0]["type"])
	}
	meta, _ := out[0]["payload"].(map[string]any)
	if meta["id"] != thread || meta["cwd"] != cwd || meta["cli_version"] != harness.CodexVersion {
		t.Errorf("%s line 1: session_meta id %v cwd %v cli_version %v, want %s %s %s", path, meta["id"], meta["cwd"], meta["cli_version"], thread, cwd, harness.CodexVersion)
	}
	return out
}

// codexStateDB opens the highest-numbered $CODEX_HOME/state_<N>.sqlite
// read-only.
func codexStateDB(t *testing.T, env *harness.Env) (*sql.DB, string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(env.CodexHome, "state_*.sqlite"))
	best, bestN := "", -1
	for _, p := range paths {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "state_"), ".sqlite"))
		if err == nil && n > bestN {
			best, bestN = p, n
		}
	}
	if best == "" {
		t.Fatalf("no state_<N>.sqlite in %s (have %v)", env.CodexHome, listDir(env.CodexHome))
	}
	db, err := sql.Open("sqlite", "file:"+best+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, best
}

// codexThreads reads every row of the threads table as column -> value,
// checking the columns tether relies on exist.
func codexThreads(t *testing.T, db *sql.DB, dbPath string) []map[string]any {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM threads ORDER BY created_at_ms, id`)
	if err != nil {
		t.Fatalf("%s: %v", dbPath, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for _, want := range []string{"id", "rollout_path", "cwd", "source", "first_user_message", "created_at", "updated_at"} {
		if !contains(cols, want) {
			t.Errorf("%s: threads has no column %q (columns %v)", dbPath, want, cols)
		}
	}
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := map[string]any{}
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok {
				vals[i] = string(b)
			}
			row[c] = vals[i]
		}
		out = append(out, row)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// rowsJSONL renders rows as JSONL with sorted keys (deterministic).
func rowsJSONL(rows []map[string]any) []byte {
	var b bytes.Buffer
	for _, r := range rows {
		j, _ := json.Marshal(r) // maps marshal with sorted keys
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestCodex(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	t.Run("exec-resume", func(t *testing.T) {
		t.Parallel()
		api := startAPI(t)
		env := harness.NewEnv(t, api)
		hooksFile := installCodexHookRecorder(t, env)
		cwd := env.ProjectDir("project")

		// 1. codex exec with a shell call.
		started := time.Now()
		res := env.Codex(context.Background(), clis.Codex, cwd, append(append([]string{"exec"}, codexExecFlags...), "TOOL_BASH please")...)
		if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "Done." {
			t.Fatalf("codex exec: exit %d, stdout %q, want 0 and Done.; stderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		rollouts := env.CodexRollouts()
		if len(rollouts) != 1 {
			t.Fatalf("rollouts after codex exec: %v", rollouts)
		}
		rollout := rollouts[0]
		thread := checkRolloutPath(t, env, rollout, started)
		if !strings.Contains(res.Stderr, thread) {
			t.Errorf("codex exec's stderr does not name the thread %s", thread)
		}
		recs := checkRollout(t, rollout, thread, cwd)
		before, _ := os.ReadFile(rollout)

		// 2. codex exec resume <id> appends to the same rollout.
		api.Enqueue(fakeapi.Text("Resumed."))
		res = env.Codex(context.Background(), clis.Codex, cwd, append(append([]string{"exec"}, codexExecFlags...), "resume", thread, "second turn")...)
		if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "Resumed." {
			t.Fatalf("codex exec resume: exit %d, stdout %q; stderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		if got := env.CodexRollouts(); len(got) != 1 || got[0] != rollout {
			t.Errorf("codex exec resume made another rollout: %v", got)
		}
		after, _ := os.ReadFile(rollout)
		if !bytes.HasPrefix(after, before) || len(after) == len(before) {
			t.Errorf("codex exec resume did not append to %s", rollout)
		}
		recs = checkRollout(t, rollout, thread, cwd)
		// 0.171.0 exec writes no event_msg user_message: the prompts are
		// the user message items that are not harness context (<…>).
		var users []string
		for _, r := range recs {
			p, _ := r["payload"].(map[string]any)
			if r["type"] != "response_item" || p["type"] != "message" || p["role"] != "user" {
				continue
			}
			parts, _ := p["content"].([]any)
			for _, part := range parts {
				pm, _ := part.(map[string]any)
				if txt, _ := pm["text"].(string); pm["type"] == "input_text" && !strings.HasPrefix(txt, "<") {
					users = append(users, txt)
				}
			}
		}
		if strings.Join(users, "|") != "TOOL_BASH please|second turn" {
			t.Errorf("rollout %s: user prompts %q, want both prompts", rollout, users)
		}
		last, _ := api.LastModelRequest()
		if txt := strings.Join(last.UserTexts(), "\n"); !strings.Contains(txt, "TOOL_BASH please") || !strings.Contains(txt, "second turn") {
			t.Errorf("the resumed request lacks the history: %q", last.UserTexts())
		}

		// 3. The thread row in the state DB.
		db, dbPath := codexStateDB(t, env)
		if filepath.Base(dbPath) != "state_5.sqlite" {
			t.Logf("codex %s uses %s (notes say state_5.sqlite)", harness.CodexVersion, filepath.Base(dbPath))
		}
		threads := codexThreads(t, db, dbPath)
		if len(threads) != 1 {
			t.Fatalf("%s: %d thread rows, want 1: %v", dbPath, len(threads), threads)
		}
		row := threads[0]
		for col, want := range map[string]any{"id": thread, "rollout_path": rollout, "cwd": cwd, "source": "exec", "first_user_message": "TOOL_BASH please"} {
			if fmt.Sprint(row[col]) != fmt.Sprint(want) {
				t.Errorf("%s: threads.%s = %v, want %v", dbPath, col, row[col], want)
			}
		}
		t.Logf("state row: %v", row)

		// 4. Hooks ran (bypassing trust) with the thread id and rollout.
		payloads := hookPayloads(t, hooksFile)
		seen := map[string]int{}
		for _, p := range payloads {
			ev, _ := p["hook_event_name"].(string)
			seen[ev]++
			if p["session_id"] != thread || p["transcript_path"] != rollout || p["cwd"] != cwd {
				t.Errorf("codex hook %s: session_id %v transcript_path %v cwd %v, want %s %s %s", ev, p["session_id"], p["transcript_path"], p["cwd"], thread, rollout, cwd)
			}
		}
		for _, ev := range codexHookEvents {
			if seen[ev] == 0 {
				t.Errorf("codex hook %s never fired (fired: %v)", ev, seen)
			}
		}
		t.Logf("codex hooks fired: %v", seen)

		goldenFile(t, env, codexGolden("rollout-exec-resume.jsonl"), rollout)
		golden(t, env, codexGolden("state-threads.jsonl"), dbPath+" threads", rowsJSONL(threads))
		goldenFile(t, env, codexGolden("hook-payloads.jsonl"), hooksFile)
		goldenSchema(t, db, dbPath)
	})

	t.Run("missing-id", func(t *testing.T) {
		t.Parallel()
		api := startAPI(t)
		env := harness.NewEnv(t, api)
		cwd := env.ProjectDir("project")
		missing := "019a0000-0000-7000-8000-000000000abc"
		res := env.Codex(context.Background(), clis.Codex, cwd, "exec", "--skip-git-repo-check", "resume", missing, "hello")
		if res.ExitCode != 1 {
			t.Errorf("resume of a missing id: exit %d, want 1", res.ExitCode)
		}
		if want := "no rollout found for thread id " + missing; !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr %q lacks %q", res.Stderr, want)
		}
		if got := env.CodexRollouts(); len(got) != 0 {
			t.Errorf("a failed resume left rollouts %v", got)
		}
	})

	t.Run("context-exceeded", func(t *testing.T) {
		t.Parallel()
		api := startAPI(t)
		env := harness.NewEnv(t, api)
		cwd := env.ProjectDir("project")
		api.Enqueue(fakeapi.ContextLengthExceeded())
		res := env.Codex(context.Background(), clis.Codex, cwd, "exec", "--skip-git-repo-check", "a prompt that overflows")
		if res.ExitCode != 1 {
			t.Errorf("context exceeded: exit %d, want 1", res.ExitCode)
		}
		const want = "Codex ran out of room in the model's context window"
		if !strings.Contains(res.Stderr+res.Stdout, want) {
			t.Errorf("output lacks %q; stdout %q stderr %q", want, res.Stdout, res.Stderr)
		}
		rollouts := env.CodexRollouts()
		if len(rollouts) != 1 {
			t.Fatalf("rollouts after a failed turn: %v", rollouts)
		}
		thread := checkRolloutPath(t, env, rollouts[0], time.Now().Add(-time.Minute))
		checkRollout(t, rollouts[0], thread, cwd)
	})
}

// goldenSchema writes the state DB's schema (CREATE statements, in
// creation order) with -update, and otherwise checks the threads columns are unchanged.
func goldenSchema(t *testing.T, db *sql.DB, dbPath string) {
	t.Helper()
	path := testutil.Testdata(t, codexGolden(strings.TrimSuffix(filepath.Base(dbPath), ".sqlite")+".schema.sql"))
	// In creation order (a new row's rowid is above every existing one),
	// so that the dump replays as DDL: the corpus and the catalog's tests
	// build their state DBs from this file.
	rows, err := db.Query(`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var stmts []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, s+";")
	}
	schema := strings.Join(stmts, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(schema), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("golden: wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden %s: %v; regenerate with scripts/golden.sh", path, err)
		return
	}
	tables := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "CREATE TABLE") {
				out = append(out, strings.Fields(l)[2])
			}
		}
		sort.Strings(out)
		return out
	}
	if string(want) != schema {
		t.Errorf("golden %s: the state DB schema of %s changed (tables now %v, were %v); check the threads columns tether reads and refresh with scripts/golden.sh",
			path, dbPath, tables(schema), tables(string(want)))
	}
}
