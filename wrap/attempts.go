package wrap

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
)

// reasonTooLong is what resumeFailure calls a resume the API refused.
const reasonTooLong = "prompt too long"

// attemptOutput holds back the standard output of a resume attempt that
// may not count: when each run prints one JSON document (`claude -p
// --output-format json`: ResumeArgs.OneDocument), a consumer must get
// exactly one, the one of the attempt that counts. Text and stream-json output, and interactive runs,
// pass straight through (stream-json consumers tell attempts apart by the
// session_id of each system/init event; see docs/wrapper.md).
type attemptOutput struct {
	hold bool
	out  io.Writer // the real destination; nil means os.Stdout
	buf  bytes.Buffer
}

func (o Options) newAttemptOutput(res agent.ResumeArgs) *attemptOutput {
	return &attemptOutput{hold: res.OneDocument, out: o.Stdout}
}

// writer is where the next attempt writes.
func (a *attemptOutput) writer() io.Writer {
	if a.hold {
		a.buf.Reset()
		return &a.buf
	}
	return a.out
}

// release passes the held output on: the attempt counts.
func (a *attemptOutput) release() {
	if !a.hold || a.buf.Len() == 0 {
		return
	}
	out := a.out
	if out == nil {
		out = os.Stdout
	}
	out.Write(a.buf.Bytes())
	a.buf.Reset()
}

// withhold drops the held output of a failed attempt, logging what kind
// of document it was (never its text).
func (a *attemptOutput) withhold(log *eventlog.Log, id string) {
	if !a.hold {
		return
	}
	doc := gjson.ParseBytes(bytes.TrimSpace(a.buf.Bytes()))
	log.Info(eventlog.OutputWithheld, id, slog.Int("bytes", a.buf.Len()), slog.String("type", doc.Get("type").Str),
		slog.String("subtype", doc.Get("subtype").Str), slog.Bool("is_error", doc.Get("is_error").Bool()))
	a.buf.Reset()
}

// retryTrimmed handles a resume the API refused as too long although the
// preflight let it through: trim the transcript to fit (a backup is kept)
// and resume once more. tried says whether it did; done is false when the
// session could not be trimmed or the second attempt failed the same way:
// the caller then starts fresh.
func (o Options) retryTrimmed(log *eventlog.Log, res agent.ResumeArgs, child Child, out *attemptOutput) (code int, tried, done bool, err error) {
	if !o.Agent.Capabilities().Trim || o.trimOff() != "" {
		return 0, false, false, nil
	}
	tr := o.findTranscript(res.ID)
	rep, window, err := o.fitTrim(res.ID, tr.path)
	if err != nil || !rep.Changed {
		if err != nil {
			log.Warn(eventlog.TrimFailed, res.ID, eventlog.TrimFailedAttrs(eventlog.SourceRetry, tr.path, 0, err)...)
		}
		return 0, false, false, nil
	}
	log.Warn(eventlog.ResumeFailure, res.ID, slog.String("reason", reasonTooLong), slog.String("next", "trim"), slog.String("transcript", tr.path))
	rep.Source = eventlog.SourceRetry
	log.Info(eventlog.Trim, res.ID, rep.Attrs()...)
	fmt.Fprintf(o.Stderr, "tether: session %s: prompt too long — trimmed to about %.0f%% of its context (backup: %s); resuming once more.\n",
		termsafe.String(o.short(res.ID, tr)), agent.Percent(rep.TokensAfter, window), termsafe.String(rep.Backup))
	tr = o.findTranscript(res.ID)
	child.Stdout = out.writer()
	code, err = o.Exec(child)
	log.Info(eventlog.ResumeRetry, res.ID, slog.Int("exit_code", code))
	if err != nil {
		return code, true, true, fmt.Errorf("run %s: %w", o.Bin, err)
	}
	if reason, _ := o.resumeFailure(res.ID, tr); code != 0 && code < 128 && reason != "" {
		out.withhold(log, res.ID)
		return code, true, false, nil
	}
	out.release()
	return code, true, true, nil
}

// fitTrim shrinks a transcript to FitPercent of its window and
// returns the report and the window it used.
func (o Options) fitTrim(id, path string) (eventlog.TrimDone, int64, error) {
	// The attempt ended, but another process may still run the session.
	if live := o.Agent.Live(id, path); live.Live() && !o.Force {
		return eventlog.TrimDone{}, 0, fmt.Errorf("session %s may be running (%s); not trimming it", id, live.Reason)
	}
	u, err := o.Agent.Usage(nil, path, jsonl.DefaultTail)
	if err != nil {
		return eventlog.TrimDone{}, 0, err
	}
	var reported int64
	if st, err := state.LoadSession(o.StateDir, id); err == nil && o.StateDir != "" {
		reported = st.ReportedWindow
	}
	window, _ := o.Windows.For(u.Model, reported, u.Window)
	target := o.FitPercent
	if target <= 0 {
		target = 60
	}
	rep, err := o.FitTrim(path, target, window)
	return rep, window, err
}

// fallbackNotice is the one line said before a fresh start: why, which
// project files carry context over (only those that exist), where the old
// session is and the one command that would make it resumable.
func (o Options) fallbackNotice(id, reason, dir string, tr transcript) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tether: session %s could not be resumed (%s) — starting fresh.", o.short(id, tr), reason)
	if dir == "" {
		dir, _ = os.Getwd()
	}
	var have []string
	for _, name := range o.Agent.ContextFiles() {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			have = append(have, name)
		}
	}
	if len(have) > 0 {
		fmt.Fprintf(&b, " Project context is preserved in %s.", strings.Join(have, " and "))
	}
	if tr.path != "" {
		if _, err := os.Stat(tr.path); err == nil {
			fmt.Fprintf(&b, " The old session is kept in %s; %s.", tr.path, fixHint(o.Agent.Capabilities().Trim, id, reason))
		}
	}
	return b.String()
}

// fixHint is the command that would make the old session resumable, or
// tell what is wrong with it.
func fixHint(trimmable bool, id, reason string) string {
	if fix := FitFix(trimmable, id, reason); fix != "" {
		return "to make it resumable: " + fix
	}
	return "to see what it holds: tether sessions show " + id
}

// FitFix is the trim that would make a session too large to resume
// resumable (of an agent tether can trim: trimmable): to 60% of the
// window, or to 30% when a trim to 60% was already tried. "" when the
// reason is not about size.
func FitFix(trimmable bool, id, reason string) string {
	switch {
	case !trimmable:
		return ""
	case strings.Contains(reason, "even after trimming"):
		return "tether trim --fit 30% " + id
	case strings.HasPrefix(reason, reasonTooLong), strings.HasPrefix(reason, "context at"):
		return "tether trim --fit 60% " + id
	}
	return ""
}
