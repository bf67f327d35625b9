package claude

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/jsonl"
)

// ProjectsDir is where Claude Code keeps transcripts: one directory per
// project (named by ProjectDirName), one <session id>.jsonl per session.
func ProjectsDir(configDir string) string { return filepath.Join(configDir, "projects") }

// SessionsDir holds sessions/<pid>.json while a process runs.
func SessionsDir(configDir string) string { return filepath.Join(configDir, "sessions") }

// IsSessionFile reports whether a file name in a project directory is a
// session transcript. Claude Code 2.0.x kept subagent transcripts beside
// sessions as agent-<id>.jsonl; newer versions use <session>/subagents/.
// Neither is a session of its own.
func IsSessionFile(name string) bool {
	return strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "agent-")
}

// SessionID is the id of a transcript: its file name, which is what
// `claude --resume` looks up (a fork's copied records may still carry the
// parent's sessionId).
func SessionID(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

// FindTranscript returns the transcript of session id under configDir and
// its size, or "" when there is none (or id could be a glob).
func FindTranscript(configDir, id string) (string, int64) {
	if id == "" || strings.ContainsAny(id, `*?[\/`) {
		return "", 0
	}
	matches, _ := filepath.Glob(filepath.Join(ProjectsDir(configDir), "*", id+".jsonl"))
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
			return m, st.Size()
		}
	}
	return "", 0
}

// NewestSession is the id of the transcript modified last, not before
// since; "" when there is none.
func NewestSession(configDir string, since time.Time) string {
	if p := jsonl.Newest(filepath.Join(ProjectsDir(configDir), "*", "*.jsonl"), since); p != "" {
		return SessionID(p)
	}
	return ""
}

// LiveSession is sessions/<pid>.json, present while that process runs.
type LiveSession struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Status    string `json:"status"`
	Tmux      string `json:"tmux"`
}

// Alive reports whether a process exists (signal 0; EPERM means it does).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// LiveSessions reads sessions/*.json and returns those whose process is
// alive (by alive; nil: Alive), keyed by file name. A file whose process
// is gone is stale (a crash) and ignored; a file without a pid field is
// taken to be named <pid>.json.
func LiveSessions(configDir string, alive func(pid int) bool) map[string]LiveSession {
	if alive == nil {
		alive = Alive
	}
	dir := SessionsDir(configDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]LiveSession{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if !gjson.ValidBytes(data) {
			continue
		}
		// Read field by field: one odd field must not hide the session.
		s := LiveSession{
			PID:       int(gjson.GetBytes(data, "pid").Int()),
			SessionID: gjson.GetBytes(data, "sessionId").String(),
			Cwd:       gjson.GetBytes(data, "cwd").String(),
			Status:    gjson.GetBytes(data, "status").String(),
			Tmux:      gjson.GetBytes(data, "tmux").String(),
		}
		if s.SessionID == "" {
			continue
		}
		if s.PID <= 0 {
			s.PID, _ = strconv.Atoi(strings.TrimSuffix(name, ".json"))
		}
		if alive(s.PID) {
			out[name] = s
		}
	}
	return out
}
