package hooks

import (
	"errors"
	"io/fs"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/state"
)

// RecordStatusLine stores the window and usage the statusLine reported in
// the session's state, so the hooks and the prompt segment use the same
// numbers. It writes only when something changed (the statusLine runs
// after every assistant message).
func RecordStatusLine(stateDir string, in agent.StatusInput, windows agent.Windows, getenv func(string) string, now time.Time) (state.Session, error) {
	if in.SessionID == "" {
		return state.Session{}, errors.New("statusLine input has no session_id")
	}
	st, err := state.LoadSession(stateDir, in.SessionID)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		st = state.Session{}
	}
	before := st
	if st.SessionID == "" {
		st = state.Session{SessionID: in.SessionID, Harness: in.Harness, Started: now}
	}
	if st.IdentityRoot == "" {
		if v := getenv(identity.EnvRoot); v != "" && identity.CheckPinned(v) == nil {
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
		st.Percent = state.Percent(st.Tokens, st.Window)
	}
	// Unchanged but for Updated: nothing to save.
	same := st
	same.Updated = before.Updated
	if same == before {
		return st, nil
	}
	st.Updated = now
	return st, state.Save(stateDir, st)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// RenderStatusLine is the one line shown under Claude Code's prompt: the
// segments o names (model and the context gauge unless configured), joined
// by " · ". The gauge is coloured by o.Thresholds, the same ones the shell
// prompt segment uses, when o.Color is set.
func RenderStatusLine(in agent.StatusInput, st state.Session, o StatusOptions) string {
	segs := o.Segments
	if len(segs) == 0 {
		segs = DefaultSegments
	}
	var parts []string
	for _, name := range segs {
		if text := renderSegment(name, in, st, o); text != "" {
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, " · ")
}

func renderContext(st state.Session, o StatusOptions) string {
	if !st.UsageKnown {
		return "ctx –"
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
			bar.WriteRune(eighths[n-1])
		default:
			bar.WriteRune('░')
		}
	}
	// Concatenated, not by fmt: this runs on every render.
	text := bar.String() + " " + gauge.Pct(pct) + "% (" + gauge.Tokens(st.Tokens) + "/" + gauge.Tokens(st.Window) + ")"
	if o.Color {
		t := o.Thresholds
		if t == (gauge.Thresholds{}) {
			t = gauge.Default
		}
		text = ansiColour[t.Colour(pct)] + text + "\x1b[0m"
	}
	return "ctx " + text
}

// eighths are the bar's partial cells, one to seven eighths full.
var eighths = [7]rune{'▏', '▎', '▍', '▌', '▋', '▊', '▉'}

var ansiColour = map[string]string{"green": "\x1b[32m", "yellow": "\x1b[33m", "red": "\x1b[31m"}
