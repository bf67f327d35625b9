package hot

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
)

// StatuslineOptions are the inputs of RunStatusline.
type StatuslineOptions struct {
	IO       *iostreams.IOStreams
	StateDir string
	Getenv   func(string) string
	Now      func() time.Time
	Log      *eventlog.Log
}

// Statusline is `tether statusline`.
func Statusline(d Deps) error {
	return RunStatusline(StatuslineOptions{IO: d.IO, StateDir: d.Loc.StateDir, Getenv: d.Getenv, Now: d.Now, Log: d.Log()})
}

// RunStatusline never fails: a statusLine that errors shows nothing
// useful, so problems go to the lifecycle log and a plain line is printed.
func RunStatusline(opts StatuslineOptions) error {
	data, err := hooks.ReadPayload(opts.IO.In, hooks.ReadLimits{Total: time.Second, Idle: 100 * time.Millisecond, Max: 1 << 20})
	in, perr := hooks.ParseStatusLine(data)
	if perr != nil {
		if err == nil {
			err = perr
		}
		opts.Log.Warn(eventlog.HookError, "", slog.String("hook_event", "statusLine"), slog.String("error", err.Error()))
		fmt.Fprintln(opts.IO.Out, "tether")
		return nil
	}
	st, err := hooks.RecordStatusLine(opts.StateDir, in, opts.Getenv, opts.Now())
	if err != nil {
		opts.Log.Warn(eventlog.HookError, in.SessionID, slog.String("hook_event", "statusLine"), slog.String("error", err.Error()))
	}
	fmt.Fprintln(opts.IO.Out, hooks.RenderStatusLine(in, st, !opts.IO.NoColor))
	return nil
}
