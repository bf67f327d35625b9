package hot

import (
	"context"
	"errors"
	"github.com/tether-dev/tether/internal/todayspend"
	"io"
	"log/slog"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/state"
)

// StatuslineOptions are the inputs of RunStatusline.
type StatuslineOptions struct {
	IO       *iostreams.IOStreams
	StateDir string
	// Chain is the user's statusLine command to run first ("" for none),
	// ChainTimeout its bound.
	Chain        string
	ChainTimeout time.Duration
	Getenv       func(string) string
	Now          func() time.Time
	Log          *eventlog.Log
	Config       config.Config
	Windows      agent.Windows
	// Agents are the agents tether knows: the one with a status line
	// reads its input.
	Agents agent.Registry
	// Remember keeps the window the statusLine reported for a model.
	Remember func(model string, window int64) error
	// CacheDir holds the spend the "today" segment shows.
	CacheDir string
}

// PromptThresholds are the colours' thresholds of [prompt], which the
// statusLine shares so both show a session in the same colour.
func PromptThresholds(p config.Prompt) gauge.Thresholds {
	return gauge.Thresholds{Warn: p.Warn, Crit: p.Crit}
}

// Statusline is `tether statusline`.
func Statusline(ctx context.Context, d *Deps) error {
	if d.Unsafe() != nil {
		// Nothing read from, run from or written to a directory others
		// can write (see UnsafeDir): an empty line.
		return nil
	}
	return RunStatusline(ctx, statuslineOptions(d))
}

// statuslineLimits bound the read of the statusLine's payload.
var statuslineLimits = hooks.ReadLimits{Total: time.Second, Idle: 100 * time.Millisecond, Max: 1 << 20}

// statuslineOptions are Statusline's options.
func statuslineOptions(d *Deps) *StatuslineOptions {
	// An unreadable config still draws a line, with the defaults.
	cfg, _ := d.Config()
	windows := d.Windows()
	remember := state.WindowFile{Path: state.WindowsPath(d.Loc.StateDir)}.Remember
	if c, ok := windows.Remembered.(*state.CachedWindows); ok {
		// The same read for remembering and looking up.
		remember = c.Remember
	}
	return &StatuslineOptions{IO: d.IO, StateDir: d.Loc.StateDir, CacheDir: d.Loc.CacheDir, Getenv: d.Getenv, Now: d.Now, Log: d.Log(), Config: cfg,
		Chain:        chainCommand(cfg.StatusLine, d.Loc.StateDir, d.Loc.ClaudeDir, d.Getenv),
		ChainTimeout: time.Duration(cfg.StatusLine.TimeoutMS) * time.Millisecond,
		Windows:      windows, Remember: remember, Agents: d.Agents()}
}

// RunStatusline never fails: a statusLine that errors shows nothing
// useful, so problems go to the lifecycle log and a plain line is printed.
func RunStatusline(ctx context.Context, opts *StatuslineOptions) error {
	data, err := hooks.ReadPayload(opts.IO.In, statuslineLimits)
	in, perr := parseStatusLine(opts.Agents, data)
	return statusline(ctx, opts, data, &in, err, perr)
}

// parseStatusLine reads the input of the status line of the agent that
// has one (Claude Code's statusLine).
func parseStatusLine(agents agent.Registry, data []byte) (agent.StatusInput, error) {
	s := agents.StatusLiner()
	if s == nil {
		return agent.StatusInput{}, errors.New("no agent has a status line")
	}
	return s.ParseStatusLine(data)
}

// statusline is RunStatusline once the payload is read (err: how the
// read failed) and decoded (perr: why it could not be).
func statusline(ctx context.Context, opts *StatuslineOptions, data []byte, in *agent.StatusInput, err, perr error) error {
	if perr != nil {
		if err == nil {
			err = perr
		}
		warnStatusline(opts.Log, "", err.Error())
		io.WriteString(opts.IO.Out, "tether\n")
		return nil
	}
	if in.Window > 0 && opts.Remember != nil {
		if err := opts.Remember(in.ModelID, in.Window); err != nil {
			warnStatusline(opts.Log, in.SessionID, err.Error())
		}
	}
	st, err := hooks.RecordStatusLine(opts.StateDir, *in, opts.Windows, opts.Getenv, opts.Now())
	if err != nil {
		warnStatusline(opts.Log, in.SessionID, err.Error())
	}
	line := renderStatusline(opts, in, &st)
	if opts.Chain != "" {
		// The user's own statusLine prints what it likes (colours
		// included): it is their command, run as Claude Code would.
		chained, err := runChained(ctx, opts.Chain, data, opts.ChainTimeout)
		if err != nil {
			warnStatusline(opts.Log, in.SessionID, "chained statusLine: "+err.Error())
		}
		line = besides(chained, line)
	}
	io.WriteString(opts.IO.Out, line+"\n")
	return nil
}

// warnStatusline logs a statusLine's problem.
func warnStatusline(log *eventlog.Log, sessionID, msg string) {
	log.Warn(eventlog.HookError, sessionID, slog.String("hook_event", "statusLine"), slog.String("error", msg))
}

// renderStatusline is the line for in and st.
func renderStatusline(opts *StatuslineOptions, in *agent.StatusInput, st *state.Session) string {
	return hooks.RenderStatusLine(*in, *st, hooks.StatusOptions{
		Color: !opts.IO.NoColor, Thresholds: PromptThresholds(opts.Config.Prompt), Segments: opts.Config.StatusLine.Segments,
		TodayFile: todayFile(opts.CacheDir), Today: opts.Now().Format(time.DateOnly),
	})
}

func todayFile(cacheDir string) string {
	if cacheDir == "" {
		return ""
	}
	return todayspend.File(cacheDir)
}
