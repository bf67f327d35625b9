package hot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/trim"
	"github.com/tether-dev/tether/wrap"
)

// IsAgentCommand reports whether name is the command of an agent tether
// wraps (claude, codex): the names under which the tether binary acts as
// the wrapper (a symlink claude -> tether in a shims directory).
func IsAgentCommand(name string) bool {
	for _, a := range AgentsAt(locations.Locations{}) {
		if a.Command() == name {
			return true
		}
	}
	return false
}

// MultiCall rewrites the arguments of a tether invoked as claude or codex
// into "tether run <name> …".
func MultiCall(args []string) []string {
	if len(args) == 0 {
		return args
	}
	if IsAgentCommand(filepath.Base(args[0])) {
		return append([]string{"tether", "run", filepath.Base(args[0])}, args[1:]...)
	}
	return args
}

// RunOptions is the command line of `tether run`.
type RunOptions struct {
	// Program is the wrapped agent's command (claude, codex).
	Program    string
	Args       []string
	SelfReport bool
	Force      bool
	Handoff    bool
}

// ErrRunHelp is ParseRunArgs' answer to --help (or -h) before the program
// name: the caller prints run's help. After the name it is the program's.
var ErrRunHelp = errors.New("run: help requested")

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
		case "--help", "-h":
			return opts, ErrRunHelp
		default:
			return opts, fmt.Errorf("unknown run flag %q (tether's own flags go before the program name; see 'tether run --help')", args[0])
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return opts, fmt.Errorf("run needs a program: %s", agentCommands())
	}
	if !IsAgentCommand(args[0]) {
		return opts, fmt.Errorf("run wraps %s, not %q", agentCommands(), args[0])
	}
	opts.Program, opts.Args = args[0], args[1:]
	return opts, nil
}

// RunWrap is `tether run`. exec runs the program (nil: wrap.Exec);
// handoff writes the summary for a fresh session (nil: no handoff, which
// tether-hot leaves to the full tether).
func RunWrap(d *Deps, opts RunOptions, exec wrap.ExecFunc, handoff func(transcript, reason string) string) error {
	self, _ := os.Executable()
	mark, nested := wrappedBy(d.Getenv)
	bin, err := findReal(opts.Program, d.Getenv, self, d.Loc.ShimsDir(), mark.skip...)
	if err != nil {
		return exitcode.With(exitcode.NotFound, err)
	}
	if nested {
		return passThrough(d, opts, exec, bin, mark)
	}
	cfg, err := d.Config()
	if err != nil {
		return err
	}
	args := opts.Args
	env := mark.set(os.Environ(), bin)
	a := d.Agents().Get(opts.Program)
	if prompt := a.Capabilities().SystemPrompt; opts.SelfReport || (cfg.Hooks.SelfReport && prompt) {
		if !prompt {
			return usageErr(fmt.Errorf("--self-report needs claude: %s has no way to append to the system prompt", opts.Program))
		}
		args = a.AppendSystemPrompt(args, wrap.SelfReportInstruction)
		// Tells the Stop hook (tether hook) to parse the self-report.
		env = append(env, EnvSelfReport+"=1")
	}
	started := d.Now()
	wopts := wrap.Options{
		Agent:       a,
		Bin:         bin,
		Args:        args,
		Root:        d.Root(),
		Env:         env,
		Interactive: d.IO.StdinTTY,
		Stdin:       pipedStdin(d),
		StderrTTY:   d.IO.StderrTTY,
		Log:         d.Log(),
		Stderr:      d.IO.ErrOut,
		Exec:        exec,
		StateDir:    d.Loc.StateDir,
		ResetName:   ResetName,
		Threshold:   cfg.Wrap.Threshold,
		Policy:      cfg.Wrap.Policy,
		FitPercent:  cfg.Wrap.FitPercent,
		Windows:     d.Windows(),
		DisableTrim: trim.Disabled(d.Getenv),
		FitTrim:     trim.FitFile,
		ResetNoted:  trim.ResetNoted,
		Force:       opts.Force,
		Abbrev:      Abbrev(d.Loc.CacheDir, a),
		Names:       IndexNames(d.Loc.CacheDir),
		Finder:      finderOf(d, a),
	}
	// A transcript that is gone is put back from the archive.
	if st, _, err := SafeArchiveStore(cfg, d.Loc); err == nil {
		wopts.Archive = st
	}
	if handoff != nil && (opts.Handoff || cfg.Wrap.Handoff) {
		wopts.Handoff = handoff
	}
	code, err := wrap.Run(wopts)
	var running *wrap.RunningError
	if errors.As(err, &running) {
		return exitcode.With(exitcode.Refused, err)
	}
	var ambiguous *wrap.AmbiguousError
	if errors.As(err, &ambiguous) {
		return exitcode.With(exitcode.Usage, err)
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
func exitLine(d *Deps, opts RunOptions, started time.Time) string {
	a := d.Agents().Get(opts.Program)
	res := a.ParseResume(opts.Args)
	if a.Capabilities().Database {
		return storedExitLine(d, a, res, started)
	}
	st, err := state.LatestForRoot(d.Loc.StateDir, d.Root().Path)
	// res.ID may be an id prefix the wrapper expanded: the latest session
	// here is then the one it resumed.
	if res.Kind == "id" && (err != nil || !identity.SameSession(st.SessionID, res.ID) && !strings.HasPrefix(st.SessionID, strings.ToLower(res.ID))) {
		st, err = state.LoadSession(d.Loc.StateDir, res.ID)
	}
	if err != nil || st.SessionID == "" || st.Updated.Before(started.Add(-time.Second)) {
		return ""
	}
	short := Abbrev(d.Loc.CacheDir, a)(st.SessionID, filepath.Dir(st.TranscriptPath))
	return FormatExitLine(a, res.Print, st, short)
}

// storedExitLine is exitLine for an agent whose sessions are rows of a
// database (no hooks keep their state): the session resumed by id, else
// the one of this directory updated since the run started, as the
// agent's reader has it (one indexed query, ~1 ms; tether only).
func storedExitLine(d *Deps, a agent.Agent, res agent.ResumeArgs, started time.Time) string {
	f := finderOf(d, a)
	if f == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var s agent.Session
	var ok bool
	if res.Kind == "id" && !res.Fork {
		s, ok, _ = f.Find(ctx, res.ID)
	} else {
		s, ok, _ = f.Latest(ctx, d.Root().Dir, started.Add(-time.Second))
	}
	if !ok {
		return ""
	}
	st := state.Session{SessionID: s.ID, Cwd: s.Cwd}
	if c := s.Context; c != nil {
		st.UsageKnown, st.Tokens, st.Window, st.Percent = true, c.Tokens, c.Window, c.Percent
	}
	return FormatExitLine(a, res.Print, st, Abbrev(d.Loc.CacheDir, a)(s.ID, ""))
}

// finderOf is a's session reader when its sessions are in a database and
// this binary links the reader (nil otherwise).
// pipedStdin is the wrapper's standard input when it is not a terminal
// (the wrapper may keep a piped prompt to send again), else nil.
func pipedStdin(d *Deps) io.Reader {
	if d.IO.StdinTTY || d.IO.In == nil {
		return nil
	}
	return d.IO.In
}

func finderOf(d *Deps, a agent.Agent) agent.Finder {
	if d.Finder == nil || !a.Capabilities().Database {
		return nil
	}
	return d.Finder(a)
}

// agentCommands names the programs `run` wraps ("claude, codex or
// opencode").
func agentCommands() string {
	var names []string
	for _, a := range AgentsAt(locations.Locations{}) {
		names = append(names, a.Command())
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FormatExitLine writes the exit line for st, a session of a. Claude Code
// prints its own "Resume this session with: claude --resume ID" as it
// exits, and Codex's TUI "To continue this session, run: codex resume
// ID", so the line names the command only after `codex exec` and
// `opencode run`, which print none.
func FormatExitLine(a agent.Agent, print bool, st state.Session, short string) string {
	ctx := "ctx –"
	if st.UsageKnown && st.Window > 0 {
		ctx = "ctx " + gauge.Pct(st.Percent) + "%"
	}
	line := fmt.Sprintf("tether: session %s · %s", termsafe.String(short), ctx)
	if argv, ok := a.Resume(st.SessionID, st.Cwd, false); ok && a.Name() != agent.Claude && print {
		line += " · resume: " + strings.Join(argv, " ")
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
func findReal(name string, getenv func(string) string, self, shims string, skipDirs ...string) (string, error) {
	skip := append([]string{shims}, skipDirs...)
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

// EnvWrapped marks the environment of the program a wrapper runs:
// "<wrapper pid>:<depth>:<dirs>", dirs (a PATH list) being where the
// programs the wrappers above ran were found. A wrapper whose parent is
// the marked one was started as "the real program" by another wrapper: a
// shim PATH led back to tether in a way wrap.IsShim cannot see (a script,
// a copy), and that directory is skipped from then on.
const EnvWrapped = "TETHER_WRAPPED"

// maxNesting bounds a chain of wrappers started by wrappers.
const maxNesting = 3

type wrapMark struct {
	depth int
	skip  []string
}

// wrappedBy reports whether this process was started by a wrapper as its
// program, with the mark it left. The mark is inherited by everything the
// agent starts; only a direct child of the marked wrapper counts, so a
// claude run from the agent's own shell is wrapped as usual.
func wrappedBy(getenv func(string) string) (wrapMark, bool) {
	f := strings.SplitN(getenv(EnvWrapped), ":", 3)
	if len(f) != 3 {
		return wrapMark{}, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid != os.Getppid() {
		return wrapMark{}, false
	}
	depth, err := strconv.Atoi(f[1])
	if err != nil {
		return wrapMark{}, false
	}
	return wrapMark{depth: depth, skip: filepath.SplitList(f[2])}, true
}

// set marks env for running bin: this process, one level deeper, bin's
// directory added to those that lead back to a wrapper should bin turn
// out to be one.
func (m wrapMark) set(env []string, bin string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvWrapped+"=") {
			out = append(out, kv)
		}
	}
	dirs := strings.Join(append(slices.Clone(m.skip), filepath.Dir(bin)), string(filepath.ListSeparator))
	return append(out, fmt.Sprintf("%s=%d:%d:%s", EnvWrapped, os.Getpid(), m.depth+1, dirs))
}

// passThrough runs bin with the arguments untouched: the wrapper above
// does the wrapping (logs, resume checks, fallback), and a second one
// would do it all twice. A chain deeper than maxNesting is refused.
func passThrough(d *Deps, opts RunOptions, exec wrap.ExecFunc, bin string, mark wrapMark) error {
	if mark.depth >= maxNesting {
		return exitcode.With(exitcode.Refused, fmt.Errorf("%s on PATH leads back to tether's wrapper (%d wrappers deep): set TETHER_%s_BIN to the real %s",
			opts.Program, mark.depth+1, strings.ToUpper(opts.Program), opts.Program))
	}
	if exec == nil {
		exec = wrap.Exec
	}
	code, err := exec(wrap.Child{Path: bin, Args: opts.Args, Env: mark.set(os.Environ(), bin), Interactive: d.IO.StdinTTY})
	if err != nil {
		return fmt.Errorf("run %s: %w", bin, err)
	}
	if code != 0 {
		return exitcode.Silent{Code: code}
	}
	return nil
}
