package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/hot"
	"github.com/tether-dev/tether/shellinit"
)

// shellEnv is what the doctor's shell checks see of the shell that started
// it.
type shellEnv struct {
	Getenv func(string) string
	// PPID is the doctor's parent, the shell the user typed it in.
	PPID int
	// RefreshIndex rebuilds the completion index (for --fix).
	RefreshIndex func() error
	Now          time.Time
}

// shellChecks report whether this shell loaded `tether init`, whether
// claude and codex go through the wrapper, and whether the completion
// index is fresh. add registers a check; fix, when not nil, is what
// --fix may do about it.
func shellChecks(opts doctorOptions, add func(status, name string, fix func() error, format string, args ...any)) {
	env := opts.Shell
	if env.Getenv == nil {
		return
	}
	shell := env.Getenv("TETHER_SHELL")
	login := filepath.Base(env.Getenv("SHELL"))
	if _, err := shellinit.ByName(login); err != nil {
		login = "bash"
	}
	sh, _ := shellinit.ByName(login)
	features := env.Getenv("TETHER_SHELL_FEATURES")
	pid, _ := strconv.Atoi(env.Getenv("TETHER_SHELL_PID"))
	thisShell := shell != "" && pid == env.PPID
	switch {
	case shell == "":
		add("warn", "shell init", nil, "not loaded in this shell — add %s to %s (or run ./install.sh --shell %s)", sh.EvalLine(""), sh.RCFile(), login)
	case !thisShell:
		add("warn", "shell init", nil, "%s integration inherited from another process (pid %d), not loaded by this shell — add %s to its rc file", shell, pid, sh.EvalLine(""))
	default:
		add("ok", "shell init", nil, "%s (%s)", shell, features)
	}

	wrapped := thisShell && strings.Contains(","+features+",", ",wrap,")
	self, _ := opts.Executable()
	for _, prog := range []string{"claude", "codex"} {
		path, err := opts.LookPath(prog)
		switch {
		case wrapped:
			add("ok", prog, nil, "a shell function running 'tether run %s'", prog)
		case err == nil && self != "" && (sameFile(path, self) || sameFile(path, hot.Sibling(self))):
			add("ok", prog, nil, "%s is tether's shim", path)
		case err != nil:
			add("ok", prog, nil, "not installed")
		default:
			add("warn", prog, nil, "%s runs without tether's wrapper — load 'tether init' (without --no-wrap), or ./install.sh --shims and put %s first on PATH", path, opts.Loc.ShimsDir())
		}
	}

	index := shellinit.IndexPath(opts.Loc.CacheDir)
	st, err := os.Stat(index)
	switch {
	case err != nil:
		add("warn", "completion", env.RefreshIndex, "no session index at %s yet (the first TAB builds it; --fix builds it now)", index)
	case env.Now.Sub(st.ModTime()) > time.Hour:
		add("warn", "completion", env.RefreshIndex, "session index %s is %s old (--fix rebuilds it)", index, env.Now.Sub(st.ModTime()).Round(time.Minute))
	default:
		add("ok", "completion", nil, "session index %s", index)
	}
}

// describeFix is the line --fix prints after trying a fix.
func describeFix(name string, err error) string {
	if err != nil {
		return fmt.Sprintf("could not fix %s: %v", name, err)
	}
	return "fixed " + name
}
