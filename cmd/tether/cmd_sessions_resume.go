package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
)

// Test hooks: resume replaces this process, and tmux is a real program.
var (
	execResume = func(dir string, argv, env []string) error {
		if err := os.Chdir(dir); err != nil {
			return err
		}
		path, err := exec.LookPath(argv[0])
		if err != nil {
			return exitcode.With(exitcode.NotFound, fmt.Errorf("%s not found on PATH", argv[0]))
		}
		return syscall.Exec(path, argv, env)
	}
	newTmux = func(getenv func(string) string) catalog.Tmux {
		return catalog.ExecTmux{Inside: getenv("TMUX") != ""}
	}
)

type sessionsResumeOptions struct {
	sessionsBase
	ID       string
	Print    bool
	Force    bool
	UseTmux  bool
	TmuxName string
	Bindings string // bindings.json path
	Tmux     catalog.Tmux
	Exec     func(dir string, argv, env []string) error
	Environ  []string
	Getenv   func(string) string
	StatDir  func(string) error
	// Logged records a resume in the lifecycle log (metadata only).
	Logged func(s catalog.Session, mode string, forced bool)
	// Self is tether's own executable: resumes go through its wrapper.
	Self string
	// Short abbreviates a session id for messages.
	Short func(id string) string
	// Restore puts an archived session's transcript back before resuming.
	Restore func(s catalog.Session) error
}

// tmuxFlag is a boolean flag that also takes a value: --tmux or
// --tmux=NAME.
type tmuxFlag struct {
	set  bool
	name string
}

func (t *tmuxFlag) Set(v string) error {
	t.set = true
	if v != "true" {
		t.name = v
	}
	return nil
}
func (t *tmuxFlag) String() string   { return t.name }
func (t *tmuxFlag) Get() any         { return t.name }
func (t *tmuxFlag) IsBoolFlag() bool { return true }

func (a *App) sessionsResumeCommand() *cli.Command {
	tf := &tmuxFlag{}
	return &cli.Command{
		Name:      "resume",
		Usage:     "continue a session in the directory it belongs to",
		ArgsUsage: "ID",
		Description: "Changes to the session's recorded cwd and runs 'tether run claude --resume ID',\n" +
			"'tether run codex resume ID' or 'tether run opencode --session ID' in place of tether:\n" +
			"the wrapper's preflight, notice and fallback apply as to a resume typed in a shell.\n" +
			"A running session is refused (exit 4) unless --force. --tmux[=NAME] opens it in a\n" +
			"detached tmux session instead (NAME, else the name remembered for this session, else\n" +
			"the cwd base name; -2, -3 … when a live session has that name) and attaches, or, with\n" +
			"no client to attach, says how to; the name is remembered in\n" +
			"$XDG_STATE_HOME/tether/bindings.json.\n\n" +
			"Examples:\n" +
			"  tether sessions resume d9f7\n" +
			"  tether sessions resume --tmux=review 01a22e82-5d0\n" +
			"  tether sessions resume --print d9f7",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "print", Usage: "print the shell command instead of running it"},
			&cli.BoolFlag{Name: "force", Usage: "resume even if the session is running"},
			&cli.GenericFlag{Name: "tmux", Value: tf, Usage: "open in tmux session `NAME` (--tmux alone picks a name)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			id, err := oneID(cmd)
			if err != nil {
				return err
			}
			b, err := a.base("")
			if err != nil {
				return err
			}
			self, _ := os.Executable()
			return runSessionsResume(ctx, sessionsResumeOptions{
				sessionsBase: b, ID: id, Print: cmd.Bool("print"), Force: cmd.Bool("force"),
				UseTmux: tf.set, TmuxName: tf.name, Bindings: state.BindingsPath(a.Loc.StateDir),
				Tmux: newTmux(a.Getenv), Exec: execResume, Environ: os.Environ(), Getenv: a.Getenv, Self: self, Short: a.knownIDs(),
				Restore: a.restoreArchived,
				Logged: func(s catalog.Session, mode string, forced bool) {
					a.Log().With(s.Harness, s.IdentityRoot).Info(eventlog.Resume, s.ID,
						slog.String("cwd", s.Resume.Dir), slog.String("mode", mode), slog.Bool("forced", forced))
				},
			})
		},
	}
}

func runSessionsResume(ctx context.Context, opts sessionsResumeOptions) error {
	s, err := resolveSession(ctx, opts.Catalog, opts.ID)
	if err != nil {
		return err
	}
	if s.State == catalog.StateArchived && opts.Restore != nil {
		// Put the transcript back first, so the command (run or
		// printed) finds it.
		if err := opts.Restore(s); err != nil {
			return err
		}
	}
	spec := s.Resume
	if opts.Print {
		fmt.Fprintln(opts.IO.Out, spec.ShellCommand())
		return nil
	}
	if s.State == catalog.StateRunning && !opts.Force {
		where := ""
		if s.Runtime != nil {
			where = fmt.Sprintf(" as pid %d", s.Runtime.PID)
			if s.Runtime.Tmux != "" {
				where += " in tmux session " + s.Runtime.Tmux
			}
		}
		return exitcode.With(exitcode.Refused, fmt.Errorf("session %s is running%s; use --force to resume it anyway", s.Key(), where))
	}
	if fi, err := os.Stat(spec.Dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("session %s belongs to %s, which no longer exists (print the command with --print to run it elsewhere)", s.Key(), spec.Dir)
	}
	env := opts.Environ
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	if opts.UseTmux {
		return resumeInTmux(opts, s, env)
	}
	if opts.Logged != nil {
		opts.Logged(s, "exec", opts.Force)
	}
	return opts.Exec(spec.Dir, viaWrapper(opts.Self, spec, opts.Force).Argv, env)
}

func resumeInTmux(opts sessionsResumeOptions, s catalog.Session, env []string) error {
	b, err := state.LoadBindings(opts.Bindings)
	if err != nil {
		return err
	}
	base := opts.TmuxName
	if base == "" {
		base = b.Sessions[s.Key()].Tmux
	}
	if base == "" {
		base = filepath.Base(s.Resume.Dir)
	}
	base = catalog.TmuxName(base)
	name := catalog.FreeTmuxName(opts.Tmux, base)
	var extra []string
	for k, v := range s.Resume.Env {
		extra = append(extra, k+"="+v)
	}
	if err := opts.Tmux.NewSession(name, s.Resume.Dir, viaWrapper(opts.Self, s.Resume, opts.Force).Argv, extra); err != nil {
		return err
	}
	b.Sessions[s.Key()] = state.Binding{Tmux: name, Dir: s.Resume.Dir, Updated: opts.Now().UTC()}
	if err := b.Save(opts.Bindings); err != nil {
		return fmt.Errorf("tmux session %s started, but the binding was not saved: %w", name, err)
	}
	if opts.Logged != nil {
		opts.Logged(s, "tmux:"+name, opts.Force)
	}
	short := identity.ShortID(s.ID)
	if opts.Short != nil {
		short = opts.Short(s.ID)
	}
	return attachOrSay(opts, s.Key(), short, name)
}

// viaWrapper is the session's resume command run through tether's
// wrapper (catalog.ResumeSpec.Via), with --force when asked.
func viaWrapper(self string, spec catalog.ResumeSpec, force bool) catalog.ResumeSpec {
	if force {
		return spec.Via(self, "--force")
	}
	return spec.Via(self)
}

// attachable is implemented by a Tmux that can tell, before trying,
// whether there is a client to attach or switch.
type attachable interface{ CanAttach() bool }

// attachOrSay attaches to the tmux session name when a client can; when
// none can (no terminal, or inside tmux without an attached client) it
// says in one line where the session runs and how to attach.
func attachOrSay(opts sessionsResumeOptions, key, short, name string) error {
	how := fmt.Sprintf("tether: session %s runs in tmux session %s; attach with: tmux attach -t %s",
		termsafe.String(short), termsafe.String(name), shquote.Printable("="+name))
	if a, ok := opts.Tmux.(attachable); ok && !a.CanAttach() {
		fmt.Fprintln(opts.IO.ErrOut, how)
		return nil
	}
	fmt.Fprintf(opts.IO.ErrOut, "tether: resumed %s in tmux session %s\n", termsafe.String(key), termsafe.String(name))
	if err := opts.Tmux.Attach(name); err != nil {
		if errors.Is(err, catalog.ErrNoTmuxClient) {
			fmt.Fprintln(opts.IO.ErrOut, how)
			return nil
		}
		return err
	}
	return nil
}
