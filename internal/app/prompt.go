package app

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/shellinit"
)

type promptOptions struct {
	Out io.Writer
	// Root is the identity root whose latest session is shown.
	Root     identity.Root
	StateDir string
	CacheDir string
	Prompt   config.Prompt
	// Format overrides Prompt.Format when set.
	Format string
	// Shell is bash, zsh or fish when a script from `tether init` asks
	// (three lines: segment, state file, stamp file), else plain (the
	// segment alone).
	Shell   string
	StampID string
	Color   bool
	Timeout time.Duration
	Now     func() time.Time
}

func (a *App) promptCommand() *cli.Command {
	return &cli.Command{
		Name:   "prompt",
		Usage:  "print the prompt segment: context use of this directory's latest agent session",
		Hidden: true,
		Description: "Prints e.g. 'ctx 62%' for the latest Claude Code or Codex session of the current\n" +
			"identity root, from one small state file the hooks keep; nothing when there is none,\n" +
			"on any error, or when the answer takes longer than --timeout. The format, and the\n" +
			"percentages at which it turns yellow and red, come from [prompt] in the config.\n\n" +
			"Placeholders: {pct} {bar} {tokens} {window} {model} {harness}.\n" +
			"--shell and --stamp-id are for the scripts of 'tether init'.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "the segment's text, e.g. 'ctx {pct}% {bar}' (default from config: " + config.DefaultPrompt().Format + ")"},
			choice(&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never (auto: on for --shell, else when stdout is a terminal; NO_COLOR turns it off)"}, "auto", "always", "never"),
			choice(&cli.StringFlag{Name: "shell", Value: "plain", Usage: "bash, zsh, fish or plain: how colour escapes are wrapped, and the init scripts' output"}, "bash", "zsh", "fish", "plain"),
			&cli.StringFlag{Name: "stamp-id", Usage: "the calling shell's pid, for its cache stamp"},
			&cli.DurationFlag{Name: "timeout", Value: 150 * time.Millisecond, Usage: "print nothing rather than take longer than this"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			shell := cmd.String("shell")
			switch shell {
			case "bash", "zsh", "fish", "plain":
			default:
				return usageErr(fmt.Errorf("--shell: %q is not one of bash, zsh, fish, plain", shell))
			}
			var color bool
			switch cmd.String("color") {
			case "always":
				color = true
			case "never":
			case "auto":
				color = !a.IO.NoColor && (shell != "plain" || a.IO.StdoutTTY)
			default:
				return usageErr(fmt.Errorf("--color: %q is not one of auto, always, never", cmd.String("color")))
			}
			if shell != "plain" && cmd.String("stamp-id") == "" {
				return usageErr(fmt.Errorf("--shell %s needs --stamp-id", shell))
			}
			cfg, err := a.Config()
			if err != nil {
				// A broken config file must not take the prompt with it.
				cfg = config.Default()
			}
			return runPrompt(promptOptions{
				Out: a.IO.Out, Root: a.Root(), StateDir: a.Loc.StateDir, CacheDir: a.Loc.CacheDir,
				Prompt: cfg.Prompt, Format: cmd.String("format"), Shell: shell, StampID: cmd.String("stamp-id"),
				Color: color, Timeout: cmd.Duration("timeout"), Now: a.Now,
			})
		},
	}
}

// runPrompt never fails: the prompt shows nothing rather than an error.
func runPrompt(opts promptOptions) error {
	type answer struct{ seg, state, stamp string }
	done := make(chan answer, 1)
	go func() { done <- promptAnswer(opts) }()
	var ans answer
	select {
	case ans = <-done:
	case <-time.After(opts.Timeout):
		// Print nothing: a script from tether init then asks again at
		// the next prompt.
		return nil
	}
	if opts.Shell == "plain" {
		if ans.seg != "" {
			fmt.Fprintln(opts.Out, ans.seg)
		}
		return nil
	}
	fmt.Fprintf(opts.Out, "%s\n%s\n%s\n", ans.seg, ans.state, ans.stamp)
	return nil
}

// promptAnswer computes the segment, and for the init scripts the state
// file the shell watches and the stamp tether left for it. The stamp is
// synced before the state is read: a write in between then shows the new
// segment and makes the shell ask once more, never the reverse.
func promptAnswer(opts promptOptions) (ans struct{ seg, state, stamp string }) {
	if opts.Root.Path == "" {
		return ans
	}
	state := rootStatePath(opts.StateDir, opts.Root.Path)
	if opts.Shell != "plain" {
		stamp, err := shellinit.StampPath(opts.CacheDir, opts.StampID)
		if err != nil || shellinit.SyncStamp(stamp, state, opts.Now()) != nil {
			// No stamp: the shell will ask again at every prompt, which
			// is slower but never stale.
			stamp = ""
		}
		ans.state, ans.stamp = state, stamp
		if stamp == "" {
			ans.state = ""
		}
	}
	u, ok, err := latestUsage(opts.StateDir, opts.Root.Path)
	if err != nil || !ok {
		return ans
	}
	format := opts.Format
	if format == "" {
		format = opts.Prompt.Format
	}
	ans.seg = shellinit.Segment(u, shellinit.SegmentOptions{
		Format: format, Shell: opts.Shell, Color: opts.Color, Warn: opts.Prompt.Warn, Crit: opts.Prompt.Crit,
	})
	return ans
}
