// Package hot runs tether's hot paths — hook, statusline, prompt, session
// id completion and the wrapper — without the catalog, SQLite or the
// command-line framework. cmd/tether-hot links only this package, so the
// programs that run on every hook event, statusLine render, prompt and TAB
// start almost as fast as an empty Go program; internal/app runs the very
// same functions for `tether hook`, `tether prompt` and the others.
package hot

import (
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/config/configfile"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/state"
)

// Deps is what the hot paths need from their process. internal/app fills
// it from its App; Base from the process of tether-hot.
type Deps struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Loc    locations.Locations
	Config func() (config.Config, error)
	Root   func() identity.Root
	Log    func() *eventlog.Log
	// Windows is the one context-window lookup (see WindowsOf).
	Windows func() agent.Windows
	// Unsafe is UnsafeDir for this process's directories (nil: none is).
	Unsafe func() error
	// Exit ends the process (nil: os.Exit). A hook over its time budget
	// calls it; tests that run many hooks in one process replace it.
	Exit func(code int)
}

// Base computes the lazily loaded parts of Deps once, for tether-hot.
type Base struct {
	d Deps

	cfgOnce sync.Once
	cfg     config.Config
	cfgErr  error

	rootOnce sync.Once
	root     identity.Root

	logOnce sync.Once
	log     *eventlog.Log

	unsafe func() error
}

// NewBase returns the dependencies of this process.
func NewBase() *Base {
	b := &Base{}
	b.d = Deps{
		IO: iostreams.System(), Getenv: os.Getenv, Now: time.Now, Loc: locations.FromEnv(os.Getenv),
		Config: b.config, Root: b.rootOf, Log: b.logOf, Windows: b.windows,
	}
	b.unsafe = sync.OnceValue(func() error { return UnsafeDir(b.d.Loc) })
	b.d.Unsafe = b.unsafe
	return b
}

// Deps returns the dependencies, with lazy Config, Root and Log.
func (b *Base) Deps() Deps { return b.d }

func (b *Base) config() (config.Config, error) {
	b.cfgOnce.Do(b.loadConfig)
	return b.cfg, b.cfgErr
}

// loadConfig reads the config file into b.cfg: not returned by value
// through the frames of its first load, under which every command runs.
func (b *Base) loadConfig() { b.cfg, b.cfgErr = configfile.Load(b.d.Loc.ConfigFile) }

// rootOf logs an unusable TETHER_IDENTITY_ROOT once, after the root is
// known (the log itself needs the root), as tether's App.Root does.
func (b *Base) rootOf() identity.Root {
	first := false
	b.rootOnce.Do(func() { b.root, first = identity.Pinned(b.d.Getenv), true })
	if first && b.root.IgnoredPin != "" {
		b.logOf().Warn(eventlog.IdentityPinIgnored, "", slog.String("reason", b.root.IgnoredPin), slog.String("root", b.root.Path))
	}
	return b.root
}

func (b *Base) windows() agent.Windows {
	cfg, _ := b.config()
	return WindowsOf(cfg, b.d.Loc)
}

// WindowsOf is the one context-window lookup every command uses: the
// window the statusLine last reported per model, then [hooks.windows],
// then the built-in table.
func WindowsOf(cfg config.Config, loc locations.Locations) agent.Windows {
	return agent.Windows{Configured: cfg.Hooks.Windows, Remembered: state.WindowFile{Path: state.WindowsPath(loc.StateDir)}.Cached()}
}

func (b *Base) logOf() *eventlog.Log {
	if b.unsafe() != nil {
		// Nothing written to a directory others can write.
		b.logOnce.Do(func() { b.log = eventlog.Open(eventlog.Options{}) })
		return b.log
	}
	cfg, _ := b.config()
	level := LogLevel(cfg, b.d.Getenv)
	if level <= slog.LevelDebug {
		// The fallback's debug record names the root at open. Resolved
		// before the log's Once: its first resolution may log an
		// ignored pin, which opens the log (inside the Once: a deadlock).
		root := b.rootOf()
		b.logOnce.Do(func() { b.log = OpenLog(cfg, b.d.Getenv, b.d.Loc, root) })
		return b.log
	}
	// Above debug nothing at open names the root: the first record that
	// does resolves it (most hook events and statusLine renders write
	// none: no stat of each component of the working directory).
	b.logOnce.Do(func() {
		b.log = eventlog.Open(logOptions(cfg, level, b.d.Loc, func() string { return b.rootOf().Path }))
	})
	return b.log
}

// OpenLog opens the lifecycle log as configured. It never fails: with an
// unreadable config it uses the defaults, and a log that cannot be written
// drops records.
func OpenLog(cfg config.Config, getenv func(string) string, loc locations.Locations, root identity.Root) *eventlog.Log {
	log := eventlog.Open(logOptions(cfg, LogLevel(cfg, getenv), loc, func() string { return root.Path }))
	if root.FellBack {
		log.Debug(eventlog.IdentityFallback, "", slog.String("raw", root.Raw), slog.String("reason", root.Reason))
	}
	return log
}

// LogLevel is the lifecycle log's level: $TETHER_LOG_LEVEL, else [log]
// level, else info.
func LogLevel(cfg config.Config, getenv func(string) string) slog.Level {
	levelName := cfg.Log.Level
	if v := getenv("TETHER_LOG_LEVEL"); v != "" {
		levelName = v
	}
	level, err := eventlog.ParseLevel(levelName)
	if err != nil {
		level = slog.LevelInfo
	}
	return level
}

func logOptions(cfg config.Config, level slog.Level, loc locations.Locations, root func() string) eventlog.Options {
	return eventlog.Options{Path: state.EventLogPath(loc.StateDir), Level: level, MaxSize: int64(cfg.Log.MaxSizeMB) << 20, RootFunc: root}
}

// DefaultVersion is the module version from build info, for builds made
// without -ldflags.
func DefaultVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
