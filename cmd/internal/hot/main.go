package hot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/shellinit/compindex"
	"github.com/tether-dev/tether/wrap"
)

// Name is the hot binary's file name; it lives next to tether.
const Name = "tether-hot"

// Main is tether-hot: it runs the hot commands it fully understands and
// hands every other command line, unchanged, to the full tether (exec, so
// output, exit status and signals are tether's own). Invoked as claude or
// codex (a shim) it is `tether run claude|codex`. version is the -ldflags
// stamp; "" (a plain build) makes --version read the build info, which
// no other command pays for.
func Main(version string, args []string) int {
	args = MultiCall(args)
	if len(args) < 2 {
		return delegate(args)
	}
	d := New()
	rest := args[2:]
	code, handled := 0, false
	switch args[1] {
	case "hook":
		code, handled = mainHook(d, rest), true
	case "statusline":
		code, handled = mainStatusline(d, rest)
	case "prompt":
		code, handled = mainPrompt(d, rest)
	case "complete":
		code, handled = mainComplete(d, rest)
	case "run":
		code, handled = mainRun(d, rest)
	case "--version":
		code, handled = mainVersion(d, version, rest)
	}
	if handled {
		return code
	}
	return delegate(args)
}

// mainHook is tether-hot hook.
func mainHook(d *Deps, rest []string) int {
	// No signal handling: an agent that kills its hook wants it gone,
	// and installing handlers costs a thread on every event.
	// The summary after SessionEnd reads the catalog, an export runs
	// the agent and reads its database: the full tether runs them.
	Hook(context.Background(), d, rest, func(args []string) (int, error) {
		t, err := FullTether()
		if err != nil {
			return 0, err
		}
		return StartBackground(t, args)
	})
	return 0
}

// mainStatusline is tether-hot statusline; handled is false for a
// command line it leaves to tether.
func mainStatusline(d *Deps, rest []string) (code int, handled bool) {
	if len(rest) != 0 {
		return 0, false
	}
	return report(d, Statusline(context.Background(), d)), true
}

// mainPrompt is tether-hot prompt.
func mainPrompt(d *Deps, rest []string) (code int, handled bool) {
	f, ok := ParsePromptFlags(rest)
	if !ok {
		return 0, false
	}
	return report(d, Prompt(d, f)), true
}

// mainComplete is tether-hot complete for claude's and codex's session
// ids (tether's own command line is tether's).
func mainComplete(d *Deps, rest []string) (code int, handled bool) {
	shell, words, ok := ParseCompleteArgs(rest)
	if !ok {
		return 0, false
	}
	if d.Unsafe() != nil {
		// Nothing from a directory others can write (see UnsafeDir):
		// the shell's own completion.
		return report(d, NoOpinion), true
	}
	handled, err := agentCompletion(completeOptions(d, shell, words))
	if !handled {
		return 0, false
	}
	return report(d, err), true
}

// completeOptions are mainComplete's options.
func completeOptions(d *Deps, shell string, words []string) *CompleteOptions {
	return &CompleteOptions{Out: d.IO.Out, Shell: shell, Words: words, IndexPath: compindex.Path(d.Loc.CacheDir),
		Root: d.Root().Path, Now: d.Now(), Refresh: func() {
			if t, err := FullTether(); err == nil {
				SpawnIndexRefresh(d.Loc.CacheDir, d.Now(), t)
			}
		}}
}

// mainRun is tether-hot run, unless it needs tether (a handoff, a config
// error, a compressed archived copy).
func mainRun(d *Deps, rest []string) (code int, handled bool) {
	opts, err := ParseRunArgs(rest)
	if err != nil || d.Unsafe() != nil {
		// The full tether reports either.
		return 0, false
	}
	cfg, cerr := d.Config()
	if cerr != nil || opts.Handoff || cfg.Wrap.Handoff || needsReader(d, opts) {
		// The handoff summary reads the catalog, an agent's database
		// its reader; a config error is the full tether's to report.
		return 0, false
	}
	// The process ends with the child: its signal handlers need
	// no reset (wrap.ExecExiting).
	err = RunWrap(d, opts, wrap.ExecExiting, nil)
	if errors.Is(err, archive.ErrNoCodec) {
		// The session is a compressed archive copy, which only
		// tether decodes; nothing was started or written yet.
		return 0, false
	}
	return report(d, err), true
}

// needsReader reports whether the wrapped agent keeps its sessions in a
// database, which only tether's reader reads (tether-hot links no
// SQLite): the session a resume names, and the context a run ended with,
// are looked up there. Starting tether costs ~2 ms; OpenCode starts in
// about a second.
func needsReader(d *Deps, opts RunOptions) bool {
	a := d.Agents().Get(opts.Program)
	return a != nil && a.Capabilities().Database && d.Finder == nil
}

// mainVersion is tether-hot --version.
func mainVersion(d *Deps, version string, rest []string) (code int, handled bool) {
	if len(rest) != 0 {
		return 0, false
	}
	if version == "" {
		version = DefaultVersion()
	}
	fmt.Fprintf(d.IO.Out, "%s version %s\n", Name, version)
	return 0, true
}

// report prints err once, as tether does, and returns the exit status.
func report(d *Deps, err error) int {
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(d.IO.ErrOut, "tether: %s\n", msg)
		}
	}
	return exitcode.Of(err)
}

// ParsePromptFlags reads tether prompt's flags as urfave/cli would for
// the spellings the shell scripts use; ok is false for anything else
// (--help, unknown flags, arguments), which the full tether answers.
func ParsePromptFlags(args []string) (f PromptFlags, ok bool) {
	f = DefaultPromptFlags()
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || args[i] == "-" || args[i] == "--" {
			return f, false
		}
		if !hasValue {
			if i+1 >= len(args) {
				return f, false
			}
			i++
			value = args[i]
		}
		switch name {
		case "format":
			f.Format = value
		case "color":
			f.Color = value
		case "shell":
			f.Shell = value
		case "stamp-id":
			f.StampID = value
		case "timeout":
			t, err := time.ParseDuration(value)
			if err != nil {
				return f, false
			}
			f.Timeout = t
		default:
			return f, false
		}
	}
	return f, true
}

// ParseCompleteArgs reads `complete [--shell S] [--line L] [-- WORDS…]`;
// ok is false for anything else (--refresh-index, --help, a bad shell).
func ParseCompleteArgs(args []string) (shell string, words []string, ok bool) {
	shell = "bash"
	line, hasLine := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			if a == "--" {
				i++
			} else if slices.ContainsFunc(args[i:], func(w string) bool { return len(w) > 1 && w[0] == '-' }) {
				// urfave/cli reads flags after a word too (and refuses
				// unknown ones): tether's to answer.
				return "", nil, false
			}
			words = args[i:]
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue {
			if i+1 >= len(args) {
				return "", nil, false
			}
			i++
			value = args[i]
		}
		switch name {
		case "shell":
			shell = value
		case "line":
			line, hasLine = value, true
		default:
			return "", nil, false
		}
	}
	if shell != "bash" && shell != "zsh" && shell != "fish" {
		return "", nil, false
	}
	if hasLine {
		words = SplitLine(line)
	}
	return shell, words, true
}

// FullTether is the full tether binary: the file named tether next to
// this one (how install.sh and go install put them), else tether on PATH.
func FullTether() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "tether")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("tether")
	if err != nil {
		return "", errors.New("cannot find the tether binary next to " + Name + " or on PATH")
	}
	return p, nil
}

// delegate replaces this process by the full tether with the same
// arguments.
func delegate(args []string) int {
	t, err := FullTether()
	if err == nil {
		argv := append([]string{"tether"}, args[min(1, len(args)):]...)
		err = syscall.Exec(t, argv, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "tether: %v\n", err)
	return 1
}

// Sibling is the tether-hot next to the tether binary at path — what the
// hooks, the shell scripts and the shims run — or path itself when there
// is none (a tether built alone still works, only slower to start).
func Sibling(tether string) string {
	if !filepath.IsAbs(tether) {
		return tether
	}
	p := filepath.Join(filepath.Dir(tether), Name)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return p
	}
	return tether
}
