package hooks

import (
	"os"
	"testing"
	"time"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/state"
)

const noticeRoot = "/home/example/src/project"

func startPayload(id, source string) string {
	return `{"hook_event_name":"SessionStart","session_id":"` + id + `","source":"` + source + `","cwd":"` + noticeRoot + `","transcript_path":"/nonexistent/` + id + `.jsonl"}`
}

// TestSessionStartShowsTheWrappersNotice: a notice the wrapper left for
// the next new session in the root is the SessionStart hook's
// systemMessage, once; one left for a named session waits for that
// session; an old one is dropped; Codex gets none.
func TestSessionStartShowsTheWrappersNotice(t *testing.T) {
	h := newHandlerEnv(t)
	h.env[identity.EnvRoot] = noticeRoot
	h.env["CLAUDE_CODE_SESSION_ID"] = "s1"
	h.Harness = "claude-code"
	const text = "tether: session d9f7843f could not be resumed (prompt too long) — starting fresh."
	state.LeaveNotice(h.StateDir, noticeRoot, "", text, h.now)

	if res := h.handle(t, startPayload("s1", "resume")); res.SystemMessage != "" {
		t.Errorf("a resumed session took the new session's notice: %q", res.SystemMessage)
	}
	if res := h.handle(t, startPayload("s2", "startup")); res.SystemMessage != text {
		t.Errorf("systemMessage %q, want the notice", res.SystemMessage)
	}
	if res := h.handle(t, startPayload("s3", "startup")); res.SystemMessage != "" {
		t.Errorf("the notice was shown twice: %q", res.SystemMessage)
	}

	restored := "tether: restored session d9f7843f from tether's archive to /x.jsonl"
	state.LeaveNotice(h.StateDir, noticeRoot, "d9f7843f-07d6-4b50-9048-40676f77f965", restored, h.now)
	if res := h.handle(t, startPayload("s4", "startup")); res.SystemMessage != "" {
		t.Errorf("another session took a restored session's notice: %q", res.SystemMessage)
	}
	if res := h.handle(t, startPayload("d9f7843f-07d6-4b50-9048-40676f77f965", "resume")); res.SystemMessage != restored {
		t.Errorf("restored session: systemMessage %q", res.SystemMessage)
	}

	state.LeaveNotice(h.StateDir, noticeRoot, "", text, h.now.Add(-time.Hour))
	if res := h.handle(t, startPayload("s5", "startup")); res.SystemMessage != "" {
		t.Errorf("an hour-old notice was shown: %q", res.SystemMessage)
	}
	if _, err := os.Stat(state.NoticePath(h.StateDir, noticeRoot)); err == nil {
		t.Error("the expired notice was left behind")
	}

	state.LeaveNotice(h.StateDir, noticeRoot, "", text, h.now)
	h.Harness = "codex"
	if res := h.handle(t, startPayload("s6", "startup")); res.SystemMessage != "" {
		t.Errorf("codex got a systemMessage: %q", res.SystemMessage)
	}
}

// TestResumeClearsStaleMark: a session that loaded (SessionStart resume)
// is not stale, whatever an earlier failed resume recorded.
func TestResumeClearsStaleMark(t *testing.T) {
	h := newHandlerEnv(t)
	tr := t.TempDir() + "/s1.jsonl"
	os.WriteFile(tr, []byte("{}\n"), 0o600)
	if err := state.MarkStale(h.StateDir, "s1", tr, "the agent could not load the session", h.now); err != nil {
		t.Fatal(err)
	}
	h.handle(t, startPayload("s1", "startup"))
	if _, err := os.Stat(state.StalePath(h.StateDir, "s1")); err != nil {
		t.Fatal("a new session's start cleared the mark")
	}
	h.handle(t, startPayload("s1", "resume"))
	if _, err := os.Stat(state.StalePath(h.StateDir, "s1")); err == nil {
		t.Error("the stale mark outlived a resume that loaded")
	}
}
