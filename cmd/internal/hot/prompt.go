package hot

import (
	"fmt"
	"io"
	"time"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/state"
)

// PromptOptions are the inputs of RunPrompt.
type PromptOptions struct {
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

// PromptFlags are the command line of `tether prompt`.
type PromptFlags struct {
	Format, Color, Shell, StampID string
	Timeout                       time.Duration
}

// DefaultPromptFlags are the flags' defaults.
func DefaultPromptFlags() PromptFlags {
	return PromptFlags{Color: "auto", Shell: "plain", Timeout: 150 * time.Millisecond}
}

// Prompt is `tether prompt`: it checks the flags (usage errors exit 2) and
// prints the segment.
func Prompt(d *Deps, f PromptFlags) error {
	color, err := promptColor(d, &f)
	if err != nil {
		return err
	}
	// The options are built within the timeout: the budget covers the
	// config's read too.
	return guardPrompt(f.Timeout, func() *PromptOptions {
		if d.Unsafe() != nil {
			// Nothing from a directory others can write (UnsafeDir).
			return nil
		}
		return promptOptions(d, &f, color)
	})
}

// promptColor checks the flags (usage errors) and says whether to colour
// the segment.
func promptColor(d *Deps, f *PromptFlags) (color bool, err error) {
	if err := CheckPromptFlags(f); err != nil {
		return false, err
	}
	switch f.Color {
	case "always":
		color = true
	case "auto":
		color = !d.IO.NoColor && (f.Shell != "plain" || d.IO.StdoutTTY)
	}
	return color, nil
}

// CheckPromptFlags is the usage check of prompt's flags both binaries
// run after parsing them.
func CheckPromptFlags(f *PromptFlags) error {
	switch f.Shell {
	case "bash", "zsh", "fish", "plain":
	default:
		return usageErr(fmt.Errorf("--shell: %q is not one of bash, zsh, fish, plain", f.Shell))
	}
	switch f.Color {
	case "always", "never", "auto":
	default:
		return usageErr(fmt.Errorf("--color: %q is not one of auto, always, never", f.Color))
	}
	if f.Shell != "plain" && f.StampID == "" {
		return usageErr(fmt.Errorf("--shell %s needs --stamp-id", f.Shell))
	}
	return nil
}

// promptOptions are prompt's options.
func promptOptions(d *Deps, f *PromptFlags, color bool) *PromptOptions {
	cfg, err := d.Config()
	if err != nil {
		// A broken config file must not take the prompt with it.
		cfg = config.Default()
	}
	return &PromptOptions{
		Out: d.IO.Out, StateDir: d.Loc.StateDir, CacheDir: d.Loc.CacheDir,
		Format: f.Format, Shell: f.Shell, StampID: f.StampID,
		Color: color, Timeout: f.Timeout, Now: d.Now,
		Prompt: cfg.Prompt, Root: d.Root(),
	}
}

func usageErr(err error) error { return exitcode.With(exitcode.Usage, err) }

// RunPrompt never fails: the prompt shows nothing rather than an error.
func RunPrompt(opts PromptOptions) error {
	return guardPrompt(opts.Timeout, func() *PromptOptions { return &opts })
}

type promptAns = struct{ seg, state, stamp string }

// guardPrompt prints the answer for the options build returns (nothing
// for nil), or nothing when building and answering take longer than
// timeout: the work runs on another goroutine, abandoned at the timeout.
func guardPrompt(timeout time.Duration, build func() *PromptOptions) error {
	var opts *PromptOptions
	var ans promptAns
	done := make(chan struct{})
	go func() {
		if opts = build(); opts != nil {
			ans = promptAnswer(opts)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(timeout):
		// Print nothing: a script from tether init then asks again
		// at the next prompt.
		return nil
	}
	if opts == nil {
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
func promptAnswer(opts *PromptOptions) (ans promptAns) {
	if opts.Root.Path == "" {
		return ans
	}
	state := RootStatePath(opts.StateDir, opts.Root.Path)
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

// RootStatePath is the one small file the hooks keep for an identity
// root's latest session, which the shell watches.
func RootStatePath(stateDir, root string) string { return state.RootPath(stateDir, root) }

// latestUsage reads the context use of root's latest session. ok is false
// when no session has reported usage for root.
func latestUsage(stateDir, root string) (u shellinit.Usage, ok bool, err error) {
	s, err := state.LatestForRoot(stateDir, root)
	if err != nil || !s.UsageKnown {
		return u, false, err
	}
	return shellinit.Usage{Harness: s.Harness, Model: s.Model, Tokens: s.Tokens, Window: s.Window, Percent: s.Percent}, true, nil
}
