package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/shellinit/compindex"
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
	// ProbeZsh names the function an interactive zsh, started as the
	// user's, has registered to complete claude; nil skips the check.
	ProbeZsh func() (string, error)
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
	for _, prog := range []string{"claude", "codex", "opencode"} {
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

	if shell == "zsh" && thisShell && strings.Contains(","+features+",", ",completion,") && env.ProbeZsh != nil {
		zshCompletionCheck(env.ProbeZsh, add)
	}

	index := compindex.Path(opts.Loc.CacheDir)
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

// zshCompletionCheck reports what a zsh really registered for claude, not
// what the init script meant to: a zsh without the completion system
// loaded completes file names whatever TETHER_SHELL_FEATURES says.
func zshCompletionCheck(probe func() (string, error), add func(status, name string, fix func() error, format string, args ...any)) {
	fn, err := probe()
	switch {
	case err != nil:
		add("warn", "completion", nil, "could not ask zsh which completion claude has: %v", err)
	case fn == "__tether_complete":
		add("ok", "completion", nil, "zsh: TAB after claude runs tether's completion")
	case fn == "":
		add("fail", "completion", nil, "zsh: nothing completes claude (the completion system is not loaded) — load 'tether init zsh' after any 'compinit' in ~/.zshrc")
	default:
		add("fail", "completion", nil, "zsh: claude is completed by %s, not tether — load 'tether init zsh' after whatever registers it in ~/.zshrc", fn)
	}
}

// zshProbeScript runs at the probe shell's first prompt, after its rc
// files and the precmd hooks (where tether registers when compinit came
// later) have run.
const zshProbeScript = "print -r -- \"__tether_probe:${_comps[claude]-}\"\nexit 0\n"

// probeZshCompletion starts `zsh -i` the way the user's terminal does (same
// environment, so the same ZDOTDIR and rc files), without a terminal and in
// its own session so it cannot touch the user's, and reads what completes
// claude there.
func probeZshCompletion(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "zsh", "-i")
	c.Stdin = strings.NewReader(zshProbeScript)
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := c.Output()
	for _, line := range strings.Split(string(out), "\n") {
		if fn, ok := strings.CutPrefix(line, "__tether_probe:"); ok {
			return strings.TrimSpace(fn), nil
		}
	}
	if err == nil {
		err = errors.New("zsh -i printed no answer")
	}
	return "", err
}

// describeFix is the line --fix prints after trying a fix.
func describeFix(name string, err error) string {
	if err != nil {
		return fmt.Sprintf("could not fix %s: %v", name, err)
	}
	return "fixed " + name
}
