// Package codex owns Codex's files under $CODEX_HOME (or ~/.codex): the
// rollouts (sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl and
// archived_sessions/), the state_N.sqlite database, the rollout record
// types tether reads (token_count, compacted, session_meta) and the fields
// of the legacy notify payload. Nothing outside agent/ spells them.
package codex

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// Rollout record and event types.
const (
	TypeSessionMeta  = "session_meta"
	TypeTurnContext  = "turn_context"
	TypeEventMsg     = "event_msg"
	TypeResponseItem = "response_item"
	TypeCompacted    = "compacted"
	EventTokenCount  = "token_count"
	EventUserMessage = "user_message"
)

// Legacy notify payload: {"type":"agent-turn-complete","thread-id",…}.
const (
	NotifyTurnComplete = "agent-turn-complete"
	NotifyThreadID     = "thread-id"
	NotifyTurnID       = "turn-id"
)

// rolloutPrefix starts every rollout's file name.
const rolloutPrefix = "rollout-"

// SessionsDir and ArchivedDir hold the live and the archived rollouts.
func SessionsDir(home string) string { return filepath.Join(home, "sessions") }

// ArchivedDir holds archived rollouts (flat).
func ArchivedDir(home string) string { return filepath.Join(home, "archived_sessions") }

// IsRolloutFile reports whether a file name is a rollout's.
func IsRolloutFile(name string) bool {
	return strings.HasPrefix(name, rolloutPrefix) && strings.HasSuffix(name, ".jsonl")
}

// IsRolloutPath reports whether path looks like a rollout (a hook's
// transcript_path), wherever $CODEX_HOME is.
func IsRolloutPath(path string) bool {
	return strings.Contains(path, "/"+rolloutPrefix)
}

// ThreadID takes the thread id (a UUID, 36 characters) out of a rollout's
// path; "" when the name is too short.
func ThreadID(path string) string {
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(id) < 36 {
		return ""
	}
	return id[len(id)-36:]
}

func validID(id string) bool { return id != "" && !strings.ContainsAny(id, `*?[\/`) }

// FindRollout returns the rollout of thread id under home, the newest day
// first, then in archived_sessions (with archived); "" when there is none.
func FindRollout(home, id string, archived bool) string {
	if !validID(id) {
		return ""
	}
	globs := []string{filepath.Join(SessionsDir(home), "*", "*", "*", rolloutPrefix+"*-"+id+".jsonl")}
	if archived {
		globs = append(globs, filepath.Join(ArchivedDir(home), rolloutPrefix+"*-"+id+".jsonl"))
	}
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		for _, p := range m {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p
			}
		}
	}
	return ""
}

// NewestThread is the thread id of the rollout modified last, not before
// since; "" when there is none.
func NewestThread(home string, since time.Time) string {
	if p := jsonl.Newest(filepath.Join(SessionsDir(home), "*", "*", "*", rolloutPrefix+"*.jsonl"), since); p != "" {
		return ThreadID(p)
	}
	return ""
}

// Compiled on first use: the hooks link this package and start on every
// event, where a regexp compiled at init is paid for nothing.
var stateDBName = lazyRE{expr: `^state_(\d+)\.sqlite$`}

// StateDB returns the state database with the highest version number under
// dir, or "" when there is none.
func StateDB(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	best, bestN := "", -1
	for _, e := range entries {
		m := stateDBName.get().FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if n, err := strconv.Atoi(m[1]); err == nil && n > bestN {
			best, bestN = filepath.Join(dir, e.Name()), n
		}
	}
	return best
}

// Head reads the first 64 KiB of a rollout: the cwd its session_meta
// recorded, and whether any line is a JSON object at all.
func Head(path string) (cwd string, valid bool) { return jsonl.FirstString(path, "payload.cwd") }

// ContextExceeded reports whether what a run appended to a rollout says
// the context window overflowed.
func ContextExceeded(appended []byte) bool {
	return bytes.Contains(appended, []byte("context_window_exceeded")) || bytes.Contains(appended, []byte("ran out of room"))
}

// TokenCount reads a token_count event's info: the context in use (the
// last request's input tokens, which include the cached ones) and the
// model's window. ok is false for rate-limit-only updates (info:null).
func TokenCount(info gjson.Result) (u agent.Usage, ok bool) {
	last := info.Get("last_token_usage")
	if !last.Exists() {
		return u, false
	}
	u.Found = true
	u.Input = last.Get("input_tokens").Int()
	u.CacheRead = last.Get("cached_input_tokens").Int()
	u.CacheCreation = last.Get("cache_write_input_tokens").Int()
	u.Output = last.Get("output_tokens").Int()
	// The Responses API counts cached tokens inside input_tokens: what
	// the next request resends is the input, as for Claude.
	u.Tokens = u.Input
	u.Window = info.Get("model_context_window").Int()
	return u, true
}

// Usage finds the context in use in a rollout: the latest token_count
// event's usage and model_context_window, unless a compaction came after.
func Usage(open jsonl.Opener, path string, lim jsonl.TailLimits) (agent.Usage, error) {
	var u agent.Usage
	size, read, err := jsonl.Tail(open, path, lim, func(line []byte) bool {
		isCount := bytes.Contains(line, []byte(`"`+EventTokenCount+`"`))
		isCompacted := bytes.Contains(line, []byte(`"`+TypeCompacted+`"`))
		if (!isCount && !isCompacted) || !gjson.ValidBytes(line) {
			return false
		}
		r := gjson.ParseBytes(line)
		switch {
		case r.Get("type").String() == TypeCompacted:
			u.Compacted = true
			return true
		case r.Get("type").String() == TypeEventMsg && r.Get("payload.type").String() == EventTokenCount:
			c, ok := TokenCount(r.Get("payload.info"))
			if !ok {
				return false
			}
			u = c
			return true
		}
		return false
	})
	u.Size, u.BytesRead = size, read
	if err != nil {
		return u, fmt.Errorf("read rollout tail: %w", err)
	}
	return u, nil
}
