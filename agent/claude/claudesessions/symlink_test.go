package claudesessions_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// TestClaudeListFollowsSymlinks: a dotfiles setup links transcripts, or
// whole project directories, into projects/ (issue 23: they were not
// listed, so 'tether trim ID' could not find them). Links are followed to
// regular files and directories; a link to what the listing reads anyway
// is not listed twice, and dangling or looping links are skipped.
func TestClaudeListFollowsSymlinks(t *testing.T) {
	dir := sessiontest.ClaudeHome(t)
	projects := filepath.Join(dir, "projects")
	elsewhere := t.TempDir()
	src := sessiontest.Sample(t, "claude-code-2.1.332", "sample-tool-session.jsonl")
	withID := func(id string) []byte { return bytes.ReplaceAll(src, []byte(sessiontest.Sample21332), []byte(id)) }
	const fileID, dirID = "11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002"

	// A transcript linked in: projects/-home-example-x/ID.jsonl -> elsewhere/ID.jsonl.
	sessiontest.WriteFile(t, filepath.Join(elsewhere, fileID+".jsonl"), withID(fileID))
	os.MkdirAll(filepath.Join(projects, "-home-example-x"), 0o700)
	symlink(t, filepath.Join(elsewhere, fileID+".jsonl"), filepath.Join(projects, "-home-example-x", fileID+".jsonl"))
	// A whole project directory linked in.
	sessiontest.WriteFile(t, filepath.Join(elsewhere, "proj-y", dirID+".jsonl"), withID(dirID))
	symlink(t, filepath.Join(elsewhere, "proj-y"), filepath.Join(projects, "-home-example-y"))
	// A second name for a directory already listed, and one for a file.
	symlink(t, "-home-example-src-proj", filepath.Join(projects, "-home-example-alias"))
	symlink(t, filepath.Join("..", "-home-example-src-proj", sessiontest.Sample2177+".jsonl"),
		filepath.Join(projects, "-home-example-x", "33333333-0000-4000-8000-000000000003.jsonl"))
	// Dangling and looping links, a link to a directory named like a
	// transcript, and a link to a FIFO: skipped.
	symlink(t, filepath.Join(elsewhere, "gone.jsonl"), filepath.Join(projects, "-home-example-x", "44444444-0000-4000-8000-000000000004.jsonl"))
	symlink(t, "loop-b", filepath.Join(projects, "loop-a"))
	symlink(t, "loop-a", filepath.Join(projects, "loop-b"))
	symlink(t, ".", filepath.Join(projects, "-home-example-x", "self"))
	os.Mkdir(filepath.Join(elsewhere, "55555555-0000-4000-8000-000000000005.jsonl"), 0o700)
	symlink(t, filepath.Join(elsewhere, "55555555-0000-4000-8000-000000000005.jsonl"), filepath.Join(projects, "-home-example-x", "55555555-0000-4000-8000-000000000005.jsonl"))
	if err := syscall.Mkfifo(filepath.Join(elsewhere, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(elsewhere, "fifo"), filepath.Join(projects, "-home-example-x", "66666666-0000-4000-8000-000000000006.jsonl"))

	ss, diags, err := (&claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}).List(t.Context(), agent.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	src2 := map[string]string{}
	for _, s := range ss {
		count[s.ID]++
		src2[s.ID] = s.Source
	}
	for _, id := range []string{sessiontest.Sample2177, sessiontest.Sample21332, fileID, dirID} {
		if count[id] != 1 {
			t.Errorf("%s listed %d times, want once (sessions %v)", id, count[id], count)
		}
	}
	if len(ss) != 4 {
		t.Errorf("%d sessions, want 4: %v", len(ss), count)
	}
	if want := filepath.Join(projects, "-home-example-x", fileID+".jsonl"); src2[fileID] != want {
		t.Errorf("linked transcript's source %q, want the link %q", src2[fileID], want)
	}
	if want := filepath.Join(projects, "-home-example-y", dirID+".jsonl"); src2[dirID] != want {
		t.Errorf("linked directory's transcript %q, want %q", src2[dirID], want)
	}
	if len(diags) != 0 {
		t.Errorf("diagnostics %v", diags)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
