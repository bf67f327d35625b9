package hot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/trim"
	"github.com/tether-dev/tether/wrap"
)

// ShimNames are the names under which the tether binary acts as the
// wrapper (a symlink claude -> tether in a shims directory).
var ShimNames = map[string]wrap.Harness{"claude": wrap.Claude, "codex": wrap.Codex}

// MultiCall rewrites the arguments of a tether invoked as claude or codex
// into "tether run <name> …".
func MultiCall(args []string) []string {
	if len(args) == 0 {
		return args
	}
	if _, ok := ShimNames[filepath.Base(args[0])]; ok {
		return append([]string{"tether", "run", filepath.Base(args[0])}, args[1:]...)
	}
	return args
}

// RunOptions is the command line of `tether run`.
type RunOptions struct {
	Harness    wrap.Harness
	Args       []string
	SelfReport bool
	Force      bool
	Handoff    bool
}

// ParseRunArgs splits "[tether flags] claude|codex [args…]". Flags are only
// recognised before the program name; everything after it belongs to the
// program.
func ParseRunArgs(args []string) (RunOptions, error) {
	var opts RunOptions
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "--self-report":
			opts.SelfReport = true
		case "--force":
			opts.Force = true
		case "--handoff":
			opts.Handoff = true
		default:
			return opts, fmt.Errorf("unknown run flag %q (tether's own flags go before the program name; see 'tether run --help')", args[0])
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return opts, fmt.Errorf("run needs a program: claude or codex")
	}
	h, ok := ShimNames[args[0]]
	if !ok {
		return opts, fmt.Errorf("run wraps claude or codex, not %q", args[0])
	}
	opts.Harness, opts.Args = h, args[1:]
	return opts, nil
}

// RunWrap is `tether run`. exec runs the program (nil: wrap.Exec);
// handoff writes the summary for a fresh session (nil: no handoff, which
// tether-hot leaves to the full tether).
func RunWrap(d Deps, opts RunOptions, exec wrap.ExecFunc, handoff func(transcript, reason string) string) error {
	self, _ := os.Executable()
	bin, err := findReal(string(opts.Harness), d.Getenv, self, d.Loc.ShimsDir())
	if err != nil {
		return exitcode.With(exitcode.NotFound, err)
	}
	cfg, err := d.Config()
	if err != nil {
		return err
	}
	args := opts.Args
	env := os.Environ()
	if opts.SelfReport || (cfg.Hooks.SelfReport && opts.Harness == wrap.Claude) {
		if opts.Harness != wrap.Claude {
			return usageErr(fmt.Errorf("--self-report needs claude: codex has no way to append to the system prompt"))
		}
		args = wrap.AppendSystemPrompt(args, wrap.SelfReportInstruction)
		// Tells the Stop hook (tether hook) to parse the self-report.
		env = append(env, EnvSelfReport+"=1")
	}
	started := d.Now()
	wopts := wrap.Options{
		Harness:     opts.Harness,
		Bin:         bin,
		Args:        args,
		Root:        d.Root(),
		Env:         env,
		ClaudeDir:   d.Loc.ClaudeDir,
		CodexDir:    d.Loc.CodexDir,
		Interactive: d.IO.StdinTTY,
		StderrTTY:   d.IO.StderrTTY,
		Log:         d.Log(),
		Stderr:      d.IO.ErrOut,
		Exec:        exec,
		StateDir:    d.Loc.StateDir,
		Threshold:   cfg.Wrap.Threshold,
		Policy:      cfg.Wrap.Policy,
		FitPercent:  cfg.Wrap.FitPercent,
		Windows:     d.Windows(),
		DisableTrim: trim.Disabled(d.Getenv),
		FitTrim:     trim.FitFile,
		ResetNoted:  trim.ResetNoted,
		Force:       opts.Force,
		Abbrev:      Abbrev(d.Loc.CacheDir),
	}
	// A transcript that is gone is put back from the archive.
	wopts.Archive, _ = ArchiveStore(cfg, d.Loc)
	if handoff != nil && (opts.Handoff || cfg.Wrap.Handoff) {
		wopts.Handoff = handoff
	}
	code, err := wrap.Run(wopts)
	var running *wrap.RunningError
	if errors.As(err, &running) {
		return exitcode.With(exitcode.Refused, err)
	}
	if err != nil {
		return err
	}
	if d.IO.StderrTTY && cfg.Wrap.ExitLine && d.Getenv("TETHER_EXIT_LINE") != "0" {
		if line := termsafe.String(exitLine(d, opts, started)); line != "" {
			if d.IO.ColorErr() {
				line = "\x1b[2m" + line + "\x1b[0m"
			}
			fmt.Fprintln(d.IO.ErrOut, line)
		}
	}
	if code != 0 {
		// The program has said what went wrong; leave with its status.
		return exitcode.Silent{Code: code}
	}
	return nil
}

// exitLine says which session just ran, how full its context is and how to
// get back to it. The hooks keep that state; without it (hooks not
// installed) there is nothing reliable to say and the line is skipped.
func exitLine(d Deps, opts RunOptions, started time.Time) string {
	st, err := state.LatestForRoot(d.Loc.StateDir, d.Root().Path)
	res := wrap.ParseResume(opts.Harness, opts.Args)
	if res.Kind == "id" && (err != nil || !identity.SameSession(st.SessionID, res.ID)) {
		st, err = state.LoadSession(d.Loc.StateDir, res.ID)
	}
	if err != nil || st.SessionID == "" || st.Updated.Before(started.Add(-time.Second)) {
		return ""
	}
	short := Abbrev(d.Loc.CacheDir)(st.SessionID, filepath.Dir(st.TranscriptPath))
	return FormatExitLine(opts.Harness, res.Print, st, short)
}

// FormatExitLine writes the exit line for st. Claude Code prints its own
// "Resume this session with: claude --resume ID" as it exits, and Codex's
// TUI "To continue this session, run: codex resume ID", so the line names
// the command only after `codex exec`, which prints none.
func FormatExitLine(h wrap.Harness, print bool, st state.Session, short string) string {
	ctx := "ctx –"
	if st.UsageKnown && st.Window > 0 {
		ctx = "ctx " + gauge.Pct(st.Percent) + "%"
	}
	line := fmt.Sprintf("tether: session %s · %s", termsafe.String(short), ctx)
	if h == wrap.Codex && print {
		line += " · resume: codex resume " + st.SessionID
	}
	return line
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// findReal is wrap.FindBinary skipping both of tether's binaries: a link
// named claude to tether-hot must not be taken for the real claude by
// tether (nor one to tether by tether-hot), or each would run the other
// forever. A directory holding such a link is skipped like the shims one.
func findReal(name string, getenv func(string) string, self, shims string) (string, error) {
	skip := []string{shims}
	ours := []string{Sibling(self)}
	if filepath.Base(self) == Name {
		ours = []string{filepath.Join(filepath.Dir(self), "tether")}
	}
	for range 8 {
		bin, err := wrap.FindBinary(name, getenv, self, skip)
		if err != nil || !isOneOf(bin, ours) {
			return bin, err
		}
		skip = append(skip, filepath.Dir(bin))
	}
	return "", fmt.Errorf("the real %s is not on PATH: every %s found is tether itself", name, name)
}

func isOneOf(path string, others []string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	for _, o := range others {
		if ost, err := os.Stat(o); err == nil && os.SameFile(st, ost) {
			return true
		}
	}
	return false
}
