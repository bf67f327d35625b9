package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/identity"
)

// StatusInput is what tether uses of Claude Code's statusLine stdin.
type StatusInput struct {
	SessionID, TranscriptPath, Cwd, ProjectDir string
	ModelID, ModelName                         string
	// Window is context_window.context_window_size (0 when absent).
	Window int64
	// Tokens is current_usage's input + cache creation + cache read;
	// HasUsage is false before the first reply and after compaction,
	// when current_usage is null.
	Tokens   int64
	HasUsage bool
}

// ParseStatusLine parses the statusLine JSON.
func ParseStatusLine(data []byte) (StatusInput, error) {
	data = trimSpace(data)
	if len(data) == 0 || data[0] != '{' || !gjson.ValidBytes(data) {
		return StatusInput{}, errors.New("statusLine input is not a JSON object")
	}
	r := gjson.ParseBytes(data)
	in := StatusInput{
		SessionID: r.Get("session_id").String(), TranscriptPath: r.Get("transcript_path").String(),
		Cwd: r.Get("cwd").String(), ProjectDir: r.Get("workspace.project_dir").String(),
		ModelID: r.Get("model.id").String(), ModelName: r.Get("model.display_name").String(),
		Window: r.Get("context_window.context_window_size").Int(),
	}
	if cu := r.Get("context_window.current_usage"); cu.IsObject() {
		in.HasUsage = true
		in.Tokens = claude.ContextTokens(cu)
	}
	return in, nil
}

// RecordStatusLine stores the window and usage the statusLine reported in
// the session's state, so the hooks and the prompt segment use the same
// numbers. It writes only when something changed (the statusLine runs
// after every assistant message).
func RecordStatusLine(stateDir string, in StatusInput, windows agent.Windows, getenv func(string) string, now time.Time) (State, error) {
	if in.SessionID == "" {
		return State{}, errors.New("statusLine input has no session_id")
	}
	st, err := LoadSession(stateDir, in.SessionID)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		st = State{}
	}
	before := st
	if st.SessionID == "" {
		st = State{SessionID: in.SessionID, Harness: agent.Claude, Started: now}
	}
	if st.IdentityRoot == "" {
		if v := getenv(identity.EnvRoot); v != "" {
			st.IdentityRoot = v
		} else if base := firstNonEmpty(in.ProjectDir, in.Cwd); base != "" {
			st.IdentityRoot = identity.Resolve(base).Path
		}
	}
	if in.Cwd != "" {
		st.Cwd = in.Cwd
	}
	if in.TranscriptPath != "" {
		st.TranscriptPath = in.TranscriptPath
	}
	if in.ModelID != "" {
		st.Model = in.ModelID
	}
	if in.Window > 0 {
		st.ReportedWindow = in.Window
	}
	if in.HasUsage {
		st.Tokens, st.UsageKnown = in.Tokens, true
	}
	st.Window, st.WindowSource = windows.For(st.Model, st.ReportedWindow, 0)
	if st.UsageKnown {
		st.Percent = Percent(st.Tokens, st.Window)
	}
	cmp := st
	cmp.Updated = before.Updated
	if cmp == before {
		return st, nil
	}
	st.Updated = now
	return st, Save(stateDir, st)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// RenderStatusLine is the one line shown under Claude Code's prompt:
// model, a small bar and the context in use, coloured green below 50%,
// yellow below 80%, red above, when color is set.
func RenderStatusLine(in StatusInput, st State, color bool) string {
	model := firstNonEmpty(in.ModelName, in.ModelID, st.Model, "claude")
	if !st.UsageKnown {
		return model + " · ctx –"
	}
	pct := st.Percent
	const width = 8
	full := int(pct / 100 * width * 8) // eighths
	full = max(0, min(full, width*8))
	var bar strings.Builder
	for i := 0; i < width; i++ {
		switch n := full - i*8; {
		case n >= 8:
			bar.WriteRune('█')
		case n > 0:
			bar.WriteRune([]rune("▏▎▍▌▋▊▉")[n-1])
		default:
			bar.WriteRune('░')
		}
	}
	text := fmt.Sprintf("%s %s %s", bar.String(), formatPct(pct), "("+Human(st.Tokens)+"/"+Human(st.Window)+")")
	if color {
		code := "32"
		switch {
		case pct >= 80:
			code = "31"
		case pct >= 50:
			code = "33"
		}
		text = "\x1b[" + code + "m" + text + "\x1b[0m"
	}
	return model + " · ctx " + text
}

func formatPct(p float64) string {
	if p < 10 && p != float64(int(p)) {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// Human formats a token count compactly: 950, 12k, 1.2M.
func Human(n int64) string {
	switch {
	case n >= 1_000_000:
		s := fmt.Sprintf("%.1f", float64(n)/1e6)
		return strings.TrimSuffix(s, ".0") + "M"
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		s := fmt.Sprintf("%.1f", float64(n)/1e3)
		return strings.TrimSuffix(s, ".0") + "k"
	}
	return fmt.Sprint(n)
}
