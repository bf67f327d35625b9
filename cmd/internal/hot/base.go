// Package hot runs tether's hot paths — hook, statusline, prompt, session
// id completion and the wrapper — without the catalog, SQLite or the
// command-line framework. cmd/tether-hot links only this package, so the
// programs that run on every hook event, statusLine render, prompt and TAB
// start almost as fast as an empty Go program; cmd/tether runs the very
// same functions for `tether hook`, `tether prompt` and the others.
package hot

import (
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/config/configfile"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/state"
)

// Deps is the one container of what a command needs from its process,
// for both binaries: tether-hot's Main makes one (New), tether's App
// embeds one, and every command of either is given it. Fields are set by
// New (or by tests); the lazily computed ones are reached through
// methods, each computed at most once. Used by pointer only (it holds
// sync.Onces).
type Deps struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Loc    locations.Locations
	// Exit ends the process (nil: os.Exit). A hook over its time budget
	// calls it; tests that run many hooks in one process replace it.
	Exit func(code int)
	// Finder is the session reader of an agent whose sessions are rows
	// of a database (agent.Capabilities.Database), which the wrapper asks
	// about a resumed session and its context at exit. tether sets it;
	// tether-hot links no reader and leaves such runs to tether (nil, or
	// a nil answer: none).
	Finder func(a agent.Agent) agent.Finder

	// readConfig reads the config file (nil: configfile.Load). A test
	// makes it hang.
	readConfig func(path string) (config.Config, error)

	cfgOnce sync.Once
	cfg     config.Config
	cfgErr  error

	rootOnce sync.Once
	root     identity.Root

	logOnce sync.Once
	log     *eventlog.Log

	unsafeOnce sync.Once
	unsafeErr  error

	agentsOnce sync.Once
	agents     agent.Registry
}

// New returns the dependencies of this process.
func New() *Deps {
	return &Deps{IO: iostreams.System(), Getenv: os.Getenv, Now: time.Now, Loc: locations.FromEnv(os.Getenv)}
}

// Agents are the agents tether knows, bound to their data roots, built
// once (reading nothing).
func (d *Deps) Agents() agent.Registry {
	d.agentsOnce.Do(func() { d.agents = AgentsAt(d.Loc) })
	return d.agents
}

// AgentsAt is the registry of agents, each reading its data root in loc:
// adding an agent is adding its package and one line here. Constructing
// one reads nothing (a hook builds it on every event).
func AgentsAt(loc locations.Locations) agent.Registry {
	return agent.Registry{
		claude.New(loc.ClaudeDir),
		codex.New(loc.CodexDir),
		opencode.New(loc.OpenCodeDir, loc.OpenCodeDB).WithConfig(loc.OpenCodeConfigDir),
	}
}

// ResetName is the name of root's reset marker (state.ResetPath): Claude
// Code's project directory name of root, as it always was, so markers
// existing installs left still act.
func ResetName(root string) string {
	name, _ := claude.ProjectDirName(root)
	return name
}

// Config returns the configuration file's settings, loaded once.
func (d *Deps) Config() (config.Config, error) {
	d.cfgOnce.Do(d.loadConfig)
	return d.cfg, d.cfgErr
}

// loadConfig reads the config file into d.cfg (once: see Config).
func (d *Deps) loadConfig() {
	read := d.readConfig
	if read == nil {
		read = configfile.Load
	}
	d.cfg, d.cfgErr = read(d.Loc.ConfigFile)
}

// Unsafe is the first of tether's directories that is not private to the
// user (UnsafeDir), checked once; nil when none.
func (d *Deps) Unsafe() error {
	d.unsafeOnce.Do(func() { d.unsafeErr = UnsafeDir(d.Loc) })
	return d.unsafeErr
}

// Root returns the identity root of this process tree, computed once.
// An unusable TETHER_IDENTITY_ROOT is logged once, here, after the root
// is known (the log itself needs the root).
func (d *Deps) Root() identity.Root {
	first := false
	d.rootOnce.Do(func() { d.root, first = identity.Pinned(d.Getenv), true })
	if first && d.root.IgnoredPin != "" {
		d.Log().Warn(eventlog.IdentityPinIgnored, "", slog.String("reason", d.root.IgnoredPin), slog.String("root", d.root.Path))
	}
	return d.root
}

// Windows is the one context-window lookup every command uses (see
// WindowsOf). A config that does not load gives no table.
func (d *Deps) Windows() agent.Windows {
	cfg, _ := d.Config()
	return WindowsOf(cfg, d.Loc)
}

// WindowsOf is the one context-window lookup every command uses: the
// window the statusLine last reported per model, then [hooks.windows],
// then the built-in table.
func WindowsOf(cfg config.Config, loc locations.Locations) agent.Windows {
	return agent.Windows{Configured: cfg.Hooks.Windows, Remembered: state.WindowFile{Path: state.WindowsPath(loc.StateDir)}.Cached()}
}

// Log returns the lifecycle log. It never fails: with an unreadable
// config it uses the defaults, a log that cannot be written drops
// records, and with an unsafe directory (Unsafe) nothing is written.
func (d *Deps) Log() *eventlog.Log {
	if d.Unsafe() != nil {
		// Nothing written to a directory others can write.
		d.logOnce.Do(func() { d.log = eventlog.Open(eventlog.Options{}) })
		return d.log
	}
	cfg, _ := d.Config()
	level := LogLevel(cfg, d.Getenv)
	if level <= slog.LevelDebug || pinIgnored(d.Getenv) {
		// The fallback's debug record names the root at open, and an
		// ignored pin is logged by any command that opens the log.
		// Resolved before the log's Once: its first resolution may log
		// an ignored pin, which opens the log (inside the Once: a
		// deadlock).
		root := d.Root()
		d.logOnce.Do(func() { d.log = OpenLog(cfg, d.Getenv, d.Loc, root) })
		return d.log
	}
	// Otherwise nothing at open names the root: the first record that
	// does resolves it (most hook events and statusLine renders write
	// none: no stat of each component of the working directory).
	d.logOnce.Do(func() {
		d.log = eventlog.Open(logOptions(cfg, level, d.Loc, func() string { return d.Root().Path }))
	})
	return d.log
}

// pinIgnored reports whether TETHER_IDENTITY_ROOT is set to a value the
// root's resolution ignores (identity.CheckPinned: no file system access).
func pinIgnored(getenv func(string) string) bool {
	v := getenv(identity.EnvRoot)
	return v != "" && identity.CheckPinned(v) != nil
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
