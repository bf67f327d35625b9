//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// readSession has Claude read three ~40 KB files: far under 60% of the
// window by tether's estimate. It returns the session and the sizes of
// its first model request (no history) and its last (all of it).
func readSession(t *testing.T, ctx context.Context, env *harness.Env, api *fakeapi.Server, tether, proj, tag string) (sid string, fresh, full int) {
	t.Helper()
	var files []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(proj, fmt.Sprintf("%s%d.txt", tag, i))
		os.WriteFile(p, []byte(strings.Repeat(strings.Repeat(tag[:1], 99)+"\n", 400)), 0o644)
		files = append(files, p)
	}
	api.Reset()
	api.Enqueue(fakeapi.Read(files[0]).Then(fakeapi.Read(files[1]).Then(fakeapi.Read(files[2]).Then(
		fakeapi.Text("read them").WithUsage(fakeapi.Usage{InputTokens: 12000, OutputTokens: 10})))))
	r := env.Run(ctx, "claude reads files "+tag, tether, proj, "run", "claude", "-p", "read the files",
		"--output-format", "stream-json", "--verbose", "--allowedTools", "Read")
	if r.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", r.ExitCode, r.Stderr)
	}
	reqs := api.ModelRequests()
	return sessionOf(t, r), len(reqs[0].Body), len(reqs[len(reqs)-1].Body)
}

// apiLimit makes the fake API refuse every request over limit bytes as
// too long, stating a count in proportion to the request's size as a real
// API does (maxTokens at the limit). Side requests over it are refused
// too.
func apiLimit(api *fakeapi.Server, limit, maxTokens int) {
	api.SetSideClassifier(func(req fakeapi.Request) bool {
		return fakeapi.IsSideRequest(req) && len(req.Body) <= limit
	})
	api.SetResponder(func(req fakeapi.Request) (fakeapi.Reply, bool) {
		if len(req.Body) > limit {
			return fakeapi.PromptTooLong(len(req.Body)*maxTokens/limit, maxTokens), true
		}
		return fakeapi.Reply{}, false
	})
}

// TestWrapTooLongCalibratesToTheAPI (issue 23, item 3): the API refuses
// the resume as too long while tether's own estimate is far under 60% of
// the window. The API's count is the truth: the wrapper scales its
// estimate to it, trims below the API's limit, and the retried resume
// succeeds; with the automatic trim off, the fix the fallback notice and
// `sessions show` print trims, and the session then resumes.
func TestWrapTooLongCalibratesToTheAPI(t *testing.T) {
	clis := harness.CLIs(t)
	ctx := context.Background()
	env, api, tether := wrapEnv(t, clis.Claude)
	base, _ := filepath.EvalSymlinks(env.Home)
	proj := filepath.Join(base, "src", "project")
	os.MkdirAll(proj, 0o755)
	const maxTokens = 200000
	// Claude Code's own compaction off (a setting many users choose; it
	// also fails when the summary request is itself too long): the
	// refusal reaches the wrapper.
	env.Setenv("DISABLE_COMPACT", "1")

	t.Run("automatic", func(t *testing.T) {
		sid, fresh, full := readSession(t, ctx, env, api, tether, proj, "auto")
		limit := (fresh + full) / 2 // between no history and all of it
		apiLimit(api, limit, maxTokens)
		defer api.SetResponder(nil)
		defer api.SetSideClassifier(nil)
		if dry := env.Run(ctx, "estimate", tether, proj, "trim", "--fit", "60%", "--dry-run", sid); !strings.Contains(dry.Stdout, "nothing to trim") {
			t.Fatalf("the session should be under 60%% by tether's own estimate:\n%s", dry.Stdout)
		}
		r := env.Run(ctx, "resume refused → calibrated trim → resume", tether, proj, "run", "claude", "-p", "--resume", sid, "go on",
			"--output-format", "json")
		if r.ExitCode != 0 {
			t.Fatalf("exit %d\n%s", r.ExitCode, r.Stderr)
		}
		if doc := oneJSONDocument(t, r); doc["session_id"] != sid || doc["is_error"] == true {
			t.Errorf("the document is not the trimmed resume's: %v\nstderr:\n%s", doc, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "resuming once more") || strings.Contains(r.Stderr, "could not be resumed") {
			t.Errorf("stderr:\n%s", r.Stderr)
		}
		if last, ok := api.LastModelRequest(); !ok || len(last.Body) > limit {
			t.Errorf("the last request (%d bytes) is over the API's limit (%d)", len(last.Body), limit)
		}
		if _, err := os.Stat(findTranscript(t, env, sid) + ".bak"); err != nil {
			t.Errorf("no backup: %v", err)
		}
	})

	t.Run("printed fix", func(t *testing.T) {
		sid, fresh, full := readSession(t, ctx, env, api, tether, proj, "fix")
		apiLimit(api, (fresh+full)/2, maxTokens)
		defer api.SetResponder(nil)
		defer api.SetSideClassifier(nil)
		env.Setenv("TETHER_DISABLE_TRIM", "1")
		r := env.Run(ctx, "resume refused, no automatic trim", tether, proj, "run", "claude", "-p", "--resume", sid, "go on")
		env.Setenv("TETHER_DISABLE_TRIM", "")
		m := regexp.MustCompile(`to make it resumable: (tether trim --fit \S+ ` + sid + `)`).FindStringSubmatch(r.Stderr)
		if r.ExitCode != 0 || m == nil {
			t.Fatalf("exit %d, no fix in the notice:\n%s", r.ExitCode, r.Stderr)
		}
		if show := env.Run(ctx, "show", tether, proj, "sessions", "show", sid); !strings.Contains(show.Stdout, "fix:           "+m[1]) {
			t.Errorf("show's fix is not the notice's %q:\n%s", m[1], show.Stdout)
		}
		tp := findTranscript(t, env, sid)
		before, _ := os.Stat(tp)
		fix := env.Run(ctx, "the printed fix", tether, proj, strings.Fields(m[1])[1:]...)
		after, _ := os.Stat(tp)
		if fix.ExitCode != 0 || !strings.HasPrefix(fix.Stdout, "trimmed ") || after.Size() >= before.Size() {
			t.Fatalf("%q did not trim (exit %d, %d -> %d bytes):\n%s%s", m[1], fix.ExitCode, before.Size(), after.Size(), fix.Stdout, fix.Stderr)
		}
		r = env.Run(ctx, "resume after the fix", tether, proj, "run", "claude", "-p", "--resume", sid, "go on", "--output-format", "json")
		if doc := oneJSONDocument(t, r); r.ExitCode != 0 || doc["session_id"] != sid || doc["is_error"] == true ||
			strings.Contains(r.Stderr, "could not be resumed") {
			t.Errorf("the fixed session did not resume (exit %d): %v\n%s", r.ExitCode, doc, r.Stderr)
		}
	})
}
