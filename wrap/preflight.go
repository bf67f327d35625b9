package wrap

import (
	"cmp"
	"fmt"
	"log/slog"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/termsafe"

	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/state"
)

// Policies for a session whose context is over the threshold.
const (
	PolicyTrim  = "trim"
	PolicyFresh = "fresh"
)

// RunningError refuses to resume a session another process is running.
type RunningError struct {
	ID  string
	PID int
	// Short is how the message names the session ("": ShortID).
	Short string
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("session %s is running in process %d — resuming it twice would interleave two conversations in one session; pass --force to do it anyway", cmp.Or(e.Short, identity.ShortID(e.ID)), e.PID)
}

// preflight decides, before a resume by id (of an agent tether can
// trim), whether to go on as
// asked (""), or to start fresh instead (the reason). It trims the
// transcript first when the configured policy says so.
func (o Options) preflight(log *eventlog.Log, id string, tr transcript, rootPath string) (string, error) {
	// A process known to run the session refuses the resume; one that
	// only may (Claude Code 2.0.x leaves little trace) does not, but the
	// session is not trimmed under it.
	live := o.Agent.Live(id, tr.path)
	if live.Live() && !live.Possible && !o.Force {
		return "", &RunningError{ID: id, PID: live.PID, Short: o.short(id, tr)}
	}
	if o.StateDir != "" {
		noted := o.ResetNoted != nil && o.ResetNoted(rootPath)
		reset, err := false, error(nil)
		if o.ResetName != nil {
			reset, err = state.TakeReset(o.StateDir, o.ResetName(rootPath))
		}
		if err == nil && (reset || noted) {
			return "a reset was requested", nil
		}
	}
	if o.Threshold <= 0 {
		return "", nil
	}
	u, err := o.Agent.Usage(nil, tr.path, jsonl.DefaultTail)
	if err != nil || !u.Found {
		return "", nil // nothing known about its size: let the CLI try
	}
	var reported int64
	if st, err := state.LoadSession(o.StateDir, id); err == nil {
		reported = st.ReportedWindow
	}
	window, _ := o.Windows.For(u.Model, reported, u.Window)
	pct := agent.Percent(u.Tokens, window)
	if pct < o.Threshold {
		return "", nil
	}
	over := fmt.Sprintf("context at %.0f%% of %s tokens", pct, gauge.Tokens(window))
	if o.Policy == PolicyFresh {
		return over, nil
	}
	if off := o.trimOff(); off != "" {
		log.Info(eventlog.TrimSkipped, id, slog.String("source", eventlog.SourceAuto), slog.String("reason", off), slog.Float64("percent", pct))
		return "", nil
	}
	if live.Live() && !o.Force {
		log.Info(eventlog.TrimSkipped, id, slog.String("source", eventlog.SourceAuto), slog.String("reason", "may be running"), slog.Int("pid", live.PID), slog.Float64("percent", pct))
		fmt.Fprintf(o.Stderr, "tether: session %s is at %.0f%% of its context but may be running (%s) — not trimming it; resuming as is.\n",
			termsafe.String(o.short(id, tr)), pct, termsafe.String(live.Reason))
		return "", nil
	}
	target := o.FitPercent
	if target <= 0 {
		target = 60
	}
	rep, err := o.FitTrim(tr.path, target, window)
	if err != nil {
		log.Warn(eventlog.TrimFailed, id, eventlog.TrimFailedAttrs(eventlog.SourceAuto, tr.path, pct, err)...)
		return over + "; trimming failed: " + err.Error(), nil
	}
	rep.Source, rep.Percent = eventlog.SourceAuto, pct
	log.Info(eventlog.Trim, id, rep.Attrs()...)
	if !rep.Changed {
		// The transcript's own size says it fits; the reported usage may
		// count things the file does not hold (system prompt, tools).
		fmt.Fprintf(o.Stderr, "tether: session %s was at %.0f%% of its context, but its transcript already fits %.0f%% — resuming as is.\n",
			termsafe.String(o.short(id, tr)), pct, target)
		return "", nil
	}
	fmt.Fprintf(o.Stderr, "tether: session %s was at %.0f%% of its context — trimmed to about %.0f%% before resuming (backup: %s; undo: tether trim --restore %s).\n",
		termsafe.String(o.short(id, tr)), pct, agent.Percent(rep.TokensAfter, window), termsafe.String(rep.Backup), termsafe.String(id))
	return "", nil
}

// trimOff says why automatic trims are off ("" when they are on).
func (o Options) trimOff() string {
	switch {
	case o.DisableTrim:
		return "TETHER_DISABLE_TRIM"
	case o.FitTrim == nil:
		return "no trimmer"
	}
	return ""
}
