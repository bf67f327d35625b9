package claudesessions_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestClaudeGetEvidence(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, repo, "init", "-q", "-b", "feature/RMI-X1-042")
	git(t, repo, "remote", "add", "origin", "git@github.com:org/widget.git")
	os.WriteFile(filepath.Join(repo, "a.go"), []byte("package a\n"), 0o644)
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "first")
	sha := git(t, repo, "rev-parse", "HEAD")
	other, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, other, "init", "-q")

	const id = "33333333-2222-3333-4444-555555555555"
	toolUse := func(ts, tid, name string, input map[string]any) map[string]any {
		r := sessiontest.AsstRec(id, ts, "claude-sonnet-4-5", 10, 0, 0, nil)
		r["message"].(map[string]any)["content"] = []any{map[string]any{"type": "tool_use", "id": tid, "name": name, "input": input}}
		return r
	}
	result := func(ts, tid, text string) map[string]any {
		return sessiontest.UserRec(id, repo, ts, []any{map[string]any{"type": "tool_result", "tool_use_id": tid, "content": text}}, nil)
	}
	recs := []map[string]any{
		sessiontest.UserRec(id, repo, "2026-01-01T00:00:00Z", "look at "+sha[:10]+" and deadbeefcafe0 for INIT-AB-123", nil),
		toolUse("2026-01-01T00:00:01Z", "t1", "Read", map[string]any{"file_path": "a.go"}),
		result("2026-01-01T00:00:02Z", "t1", "package a"),
		toolUse("2026-01-01T00:00:03Z", "t2", "Edit", map[string]any{"file_path": filepath.Join(repo, "a.go"), "old_string": "a", "new_string": "b"}),
		result("2026-01-01T00:00:04Z", "t2", "ok"),
		toolUse("2026-01-01T00:00:05Z", "t3", "Write", map[string]any{"file_path": filepath.Join(other, "sub", "b.txt")}),
		result("2026-01-01T00:00:06Z", "t3", "ok"),
		toolUse("2026-01-01T00:00:07Z", "t4", "Bash", map[string]any{"command": "git add -A && git commit -m 'fix INIT-CD-777'"}),
		result("2026-01-01T00:00:08Z", "t4", "[feature/RMI-X1-042 1a2b3c4] fix INIT-CD-777\n 1 file changed"),
		toolUse("2026-01-01T00:00:09Z", "t5", "Bash", map[string]any{"command": "echo '[main 9999999] not a commit'"}),
		result("2026-01-01T00:00:10Z", "t5", "[main 9999999] not a commit"),
	}
	dir := t.TempDir()
	sessiontest.WriteFile(t, filepath.Join(dir, "projects", "p", id+".jsonl"), sessiontest.JSONLines(recs...))
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}
	got, _ := sessiontest.List(t, r, false)
	full, err := r.Get(context.Background(), got[id])
	if err != nil {
		t.Fatal(err)
	}
	ev := full.Evidence
	if len(ev.Repos) != 2 || ev.Repos[0].ID != "github.com/org/widget" && ev.Repos[1].ID != "github.com/org/widget" {
		t.Errorf("repos %+v", ev.Repos)
	}
	if strings.Join(ev.FilesRead, ",") != filepath.Join(repo, "a.go") {
		t.Errorf("read %v", ev.FilesRead)
	}
	if len(ev.FilesModified) != 2 {
		t.Errorf("modified %v", ev.FilesModified)
	}
	if len(ev.CommitsCreated) != 1 || ev.CommitsCreated[0].SHA != "1a2b3c4" || ev.CommitsCreated[0].Branch != "feature/RMI-X1-042" {
		t.Errorf("commits created %+v", ev.CommitsCreated)
	}
	if strings.Join(ev.CommitsReferenced, ",") != sha[:10] {
		t.Errorf("referenced %v (want only the real %s)", ev.CommitsReferenced, sha[:10])
	}
	var refs []string
	for _, w := range ev.WorkRefs {
		refs = append(refs, w.Ref)
	}
	if strings.Join(refs, ",") != "INIT-AB-123,INIT-CD-777,RMI-X1-042" {
		t.Errorf("work refs %v", refs)
	}
	if full.Counts.ToolCalls != 5 || full.Counts.HumanPrompts != 1 {
		t.Errorf("counts %+v", full.Counts)
	}
	// --no-content strips prompt-derived evidence.
	full.StripContent()
	if len(full.Evidence.WorkRefs) != 0 || len(full.Evidence.CommitsReferenced) != 0 || full.Evidence.CommitsCreated[0].Subject != "" {
		t.Errorf("stripped %+v", full.Evidence)
	}
}
