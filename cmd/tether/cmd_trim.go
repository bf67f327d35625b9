package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/trim"
)

type trimOptions struct {
	IO        *iostreams.IOStreams
	ClaudeDir string
	StateDir  string
	Root      identity.Root // this process's identity root, for --reset without a session
	Now       func() time.Time
	Session   string
	Keep      []string
	KeepFile  string
	Fit       string
	Window    int
	Windows   agent.Windows
	DryRun    bool
	JSON      bool
	Force     bool
	Unknown   bool
	Restore   bool
	Reset     bool
	log       *eventlog.Log // nil logs nothing
	Ctx       context.Context
	// Catalog resolves SESSION ids; it lists ClaudeDir's sessions only.
	Catalog *catalog.Catalog
	// Codex, when set, lists the Codex sessions: an id Catalog does not
	// know is looked up there, to say it is a Codex one.
	Codex func() (*catalog.Catalog, error)
	// OpenCode resolves and trims OpenCode sessions (nil: none);
	// Compact and ForkKeep are its two ways.
	OpenCode *openCodeTrim
	Compact  bool
	ForkKeep int
}

func (a *App) trimCommand() *cli.Command {
	return &cli.Command{
		Name:      "trim",
		Usage:     "shrink a Claude Code session so it resumes, keeping a backup; compact or fork an OpenCode one",
		ArgsUsage: "SESSION",
		Description: "Rewrites a session transcript (SESSION is an id, a unique id prefix of at least\n" +
			"4 characters, or a path to a .jsonl file) by one of two policies:\n\n" +
			"  keep  (--keep PATH, --keep-file FILE, or KEEP: lines in .tether/notes.md or\n" +
			"        .loop/notes.md of the session's directory): keep the first prompt, the\n" +
			"        Reads of kept paths, attachments, compactions, titles and the last answer;\n" +
			"        drop the rest of the conversation.\n" +
			"  fit   (--fit TOKENS or --fit 60%): keep the conversation, shrinking it oldest\n" +
			"        first (thinking, then large tool output, then whole turns) until it fits.\n\n" +
			"The result is validated before it replaces the original, which is kept as\n" +
			"SESSION.jsonl.bak ('tether trim --restore SESSION' puts it back). A running\n" +
			"session is refused (exit 4) unless --force; so is one that may be running (a\n" +
			"Claude Code 2.0.x process in its project that wrote it lately). --reset asks the\n" +
			"wrapper to start the next session fresh.\n\n" +
			"An OpenCode session (a ses_ id or opencode:ID) is never rewritten: OpenCode\n" +
			"compacts its sessions itself. --compact asks it to (through a short-lived\n" +
			"'opencode serve' on a loopback port, in the session's directory; if that cannot\n" +
			"start, type /compact in OpenCode). When even OpenCode's compaction fails\n" +
			"(history too large), --fork-keep N makes a NEW session of the last N turns and\n" +
			"the last compaction summary before them (opencode export, then opencode\n" +
			"import); the original stays as it was. A running session is refused.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "keep", Usage: "keep Reads of this `PATH` (file or directory; repeatable; relative to the session's directory)"},
			&cli.StringFlag{Name: "keep-file", Usage: "read KEEP: lines from this notes `FILE`"},
			&cli.StringFlag{Name: "fit", Usage: "shrink to this many `TOKENS`, or a percentage of the window (60%)"},
			&cli.IntFlag{Name: "window", Usage: "context window of `N` tokens for --fit N% (default: from the session's model, else 200000)", HideDefault: true},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "report what would change; write nothing"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.BoolFlag{Name: "force", Usage: "trim even if the session is running"},
			&cli.BoolFlag{Name: "allow-unknown", Usage: "pass unfamiliar record and content types through instead of refusing"},
			&cli.BoolFlag{Name: "restore", Usage: "put SESSION's backup back in place"},
			&cli.BoolFlag{Name: "reset", Usage: "ask the wrapper to start the next session fresh (SESSION optional)"},
			&cli.BoolFlag{Name: "compact", Usage: "OpenCode: ask OpenCode to compact the session"},
			&cli.IntFlag{Name: "fork-keep", Usage: "OpenCode: make a new session of the last `N` turns (the original is kept)"},
			&cli.StringFlag{Name: "config-dir", Usage: "Claude Code config `DIR` (default $CLAUDE_CONFIG_DIR or ~/.claude)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			trimGC()
			if cmd.NArg() > 1 {
				return usageErr(fmt.Errorf("trim takes one SESSION, got %d arguments", cmd.NArg()))
			}
			opts := trimOptions{Ctx: ctx,
				IO: a.IO, ClaudeDir: a.Loc.ClaudeDir, StateDir: a.Loc.StateDir, Root: a.Root(), Now: a.Now,
				Session: cmd.Args().First(), Keep: cmd.StringSlice("keep"), KeepFile: cmd.String("keep-file"),
				Fit: cmd.String("fit"), Window: int(cmd.Int("window")), Windows: a.Windows(), DryRun: cmd.Bool("dry-run"), JSON: cmd.Bool("json"),
				Force: cmd.Bool("force"), Unknown: cmd.Bool("allow-unknown"), Restore: cmd.Bool("restore"), Reset: cmd.Bool("reset"),
				log: a.Log(),
			}
			if d := cmd.String("config-dir"); d != "" {
				opts.ClaudeDir = filepath.Clean(d)
			}
			c, err := a.catalogIn(catalog.ClaudeCode, opts.ClaudeDir, "")
			if err != nil {
				return err
			}
			opts.Catalog = c
			opts.Codex = func() (*catalog.Catalog, error) { return a.catalogIn(catalog.Codex, "", a.Loc.CodexDir) }
			opts.Compact, opts.ForkKeep = cmd.Bool("compact"), int(cmd.Int("fork-keep"))
			opts.OpenCode = a.openCodeTrim()
			return runTrim(opts)
		},
	}
}

func runTrim(opts trimOptions) error {
	if opts.Reset {
		if opts.Restore || opts.Fit != "" || len(opts.Keep) > 0 || opts.KeepFile != "" {
			return usageErr(errors.New("--reset cannot be combined with a trim or --restore"))
		}
		return runTrimReset(opts)
	}
	if opts.Session == "" {
		return usageErr(errors.New("trim needs a SESSION (id, id prefix or path)"))
	}
	if opts.ForkKeep < 0 {
		return usageErr(fmt.Errorf("--fork-keep %d: keep at least 1 turn", opts.ForkKeep))
	}
	if s, ok, err := opts.openCodeSession(); err != nil || ok {
		if err != nil {
			return err
		}
		return runTrimOpenCode(opts, s)
	}
	if opts.Compact || opts.ForkKeep > 0 {
		return usageErr(errors.New("--compact and --fork-keep are for OpenCode sessions; a Claude Code session is trimmed (--fit, --keep)"))
	}
	path, id, err := opts.resolveSession()
	if err != nil {
		return err
	}
	if !opts.Force && !opts.DryRun {
		if live := claude.Live(opts.ClaudeDir, id, trim.Target(path)); live.Live() {
			verb := "is"
			if live.Possible {
				verb = "may be"
			}
			return exitcode.With(exitcode.Refused, fmt.Errorf("session %s %s running: %s; a trim now would corrupt it — stop it first or pass --force", id, verb, live.Reason))
		}
	}
	if opts.Restore {
		if opts.Fit != "" || len(opts.Keep) > 0 || opts.KeepFile != "" || opts.DryRun {
			return usageErr(errors.New("--restore takes only SESSION (and --force)"))
		}
		res, err := trim.Restore(path)
		if err != nil {
			return lockRefusal(fmt.Errorf("%s: %w", path, err))
		}
		if res.AlreadyRestored {
			fmt.Fprintf(opts.IO.Out, "%s already matches its backup %s; nothing to restore\n", termsafe.String(res.Path), termsafe.String(res.Backup))
			return nil
		}
		opts.log.Info(eventlog.TrimRestore, id, slog.String("path", res.Path))
		fmt.Fprintf(opts.IO.Out, "restored %s from %s\n", termsafe.String(res.Path), termsafe.String(res.Backup))
		if res.Kept != "" {
			fmt.Fprintf(opts.IO.Out, "the replaced content is kept as %s\n", termsafe.String(res.Kept))
		}
		if res.Added > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "tether: warning: %d records were written after the trim; they are not in the restored transcript, only in %s\n",
				res.Added, termsafe.String(res.Kept))
		}
		return nil
	}
	topts := trim.Options{AllowUnknown: opts.Unknown, Window: opts.Window, Windows: opts.Windows}
	root := sessionRoot(path, opts.Root)
	var notes trim.Notes
	switch {
	case opts.Fit != "":
		if len(opts.Keep) > 0 || opts.KeepFile != "" {
			return usageErr(errors.New("--fit and --keep/--keep-file are different policies; choose one"))
		}
		topts.Policy = trim.PolicyFit
		if err := parseFit(opts.Fit, &topts); err != nil {
			return usageErr(fmt.Errorf("--fit: %w", err))
		}
	default:
		topts.Policy = trim.PolicyKeep
		keep := opts.Keep
		if opts.KeepFile != "" {
			notes, err = trim.ReadNotes(opts.KeepFile)
			if errors.Is(err, os.ErrNotExist) {
				return notFound(fmt.Errorf("keep file %s does not exist", opts.KeepFile))
			}
		} else if len(keep) == 0 {
			notes, err = trim.FindNotes(root)
		}
		if err != nil {
			return err
		}
		keep = append(keep, notes.Keep...)
		if len(keep) == 0 {
			msg := "nothing to keep: give --keep PATH, --keep-file FILE or --fit TOKENS"
			if notes.Path == "" {
				msg += fmt.Sprintf(" (no %s in %s)", strings.Join(trim.DefaultNotes, " or "), root)
			} else {
				msg += fmt.Sprintf(" (%s has no KEEP: line)", notes.Path)
			}
			return usageErr(errors.New(msg))
		}
		topts.KeepPaths = trim.ResolveKeep(keep, root)
	}
	rep, err := trim.File(path, topts, opts.DryRun)
	if err != nil {
		opts.log.Warn(eventlog.TrimFailed, id, eventlog.TrimFailedAttrs(eventlog.SourceManual, path, 0, err)...)
		return lockRefusal(err)
	}
	if !opts.DryRun && rep.Changed {
		opts.log.Info(eventlog.Trim, id, rep.Event(eventlog.SourceManual, 0).Attrs()...)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*trim.Report
			Session  string   `json:"session"`
			Keep     []string `json:"keepPaths,omitempty"`
			Notes    string   `json:"notes,omitempty"`
			ResetSet bool     `json:"resetRequested,omitempty"`
		}{rep, id, topts.KeepPaths, notes.Path, notes.Reset})
	}
	printTrimReport(opts.IO, rep, topts)
	if notes.Reset {
		fmt.Fprintf(opts.IO.Out, "note: %s says RESET: TRUE; the wrapper will start the next session fresh\n", termsafe.String(notes.Path))
	}
	return nil
}

func lockRefusal(err error) error {
	if errors.Is(err, trim.ErrLocked) {
		return exitcode.With(exitcode.Refused, err)
	}
	return err
}

func runTrimReset(opts trimOptions) error {
	root, id := opts.Root.Path, ""
	if opts.Session != "" {
		path, sid, err := opts.resolveSession()
		if err != nil {
			return err
		}
		root, id = sessionRoot(path, opts.Root), sid
	}
	marker, err := state.MarkReset(opts.StateDir, hot.ResetName(root), root, id, opts.Now())
	if err != nil {
		return fmt.Errorf("write reset marker: %w", err)
	}
	opts.log.Info(eventlog.TrimReset, id, slog.String("root", root))
	if opts.JSON {
		return json.NewEncoder(opts.IO.Out).Encode(map[string]string{"root": root, "session": id, "marker": marker})
	}
	fmt.Fprintf(opts.IO.Out, "the next session in %s will start fresh (marker %s)\n", termsafe.String(root), termsafe.String(marker))
	return nil
}

// sessionRoot is the identity root of the directory the session was
// started in, as recorded in the transcript; else this process's root.
func sessionRoot(path string, fallback identity.Root) string {
	if cwd := claude.RecordedCwd(path); cwd != "" {
		return identity.Resolve(cwd).Path
	}
	return fallback.Path
}

func parseFit(s string, o *trim.Options) error {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f <= 0 || f > 100 {
			return fmt.Errorf("%q is not a percentage in (0, 100]", s)
		}
		o.FitPercent = f
		return nil
	}
	n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is neither a token count nor a percentage", s)
	}
	o.FitTokens = n
	return nil
}

// resolveSession finds a transcript by path, or by id, unique id prefix or
// claude-code: key with the catalog's resolver.
func (opts trimOptions) resolveSession() (path, id string, err error) {
	arg := opts.Session
	if strings.ContainsRune(arg, os.PathSeparator) || strings.HasSuffix(arg, ".jsonl") {
		st, err := os.Stat(arg)
		if err != nil {
			return "", "", notFound(fmt.Errorf("session file %s: %w", arg, errors.Unwrap(err)))
		}
		if st.IsDir() {
			return "", "", usageErr(fmt.Errorf("%s is a directory, not a session transcript", arg))
		}
		abs, _ := filepath.Abs(arg)
		return abs, strings.TrimSuffix(filepath.Base(arg), ".jsonl"), nil
	}
	if strings.HasPrefix(arg, catalog.Codex+":") {
		return "", "", codexRefused(arg)
	}
	s, err := opts.Catalog.Resolve(opts.Ctx, arg)
	if errors.Is(err, catalog.ErrNotFound) && opts.Codex != nil {
		if c, cerr := opts.Codex(); cerr == nil {
			if cs, cerr := c.Resolve(opts.Ctx, arg); cerr == nil {
				return "", "", codexRefused(catalog.Codex + ":" + cs.ID)
			}
		}
	}
	if err != nil {
		return "", "", resolveErr(err)
	}
	return s.Source, s.ID, nil
}

func codexRefused(key string) error {
	return usageErr(fmt.Errorf("trim supports Claude Code sessions only; %s is a Codex session", key))
}

// calibrationNote says why a fit's target is not its share of the window:
// the API refused the prompt as too long, and its count is the truth.
func calibrationNote(r *trim.Report) string {
	if r.APITokens > 0 {
		return fmt.Sprintf("calibrated: the API refused the prompt as too long (%d tokens > %d maximum), so its count scales the estimate", r.APITokens, r.APILimit)
	}
	return "calibrated: the API refused the prompt as too long (no count given), so the target is a share of what it refused"
}

func printTrimReport(ios *iostreams.IOStreams, r *trim.Report, o trim.Options) {
	w := ios.Out
	verb := "trimmed"
	switch {
	case !r.Changed:
		verb = "nothing to trim in"
	case r.DryRun:
		verb = "would trim"
	}
	fmt.Fprintf(w, "%s %s (%s policy)\n", verb, termsafe.String(r.Path), r.Policy)
	if r.Policy == trim.PolicyFit {
		fmt.Fprintf(w, "target:  %d tokens (window %d, model %s)\n", r.Target, r.Window, termsafe.String(orDash(r.Model)))
		if r.Calibrated {
			fmt.Fprintf(w, "         %s\n", calibrationNote(r))
		}
	} else {
		fmt.Fprintf(w, "keep:    %s\n", termsafe.String(strings.Join(o.KeepPaths, ", ")))
	}
	fmt.Fprintf(w, "records: %d -> %d (%d re-linked)\n", r.RecordsBefore, r.RecordsAfter, r.Relinked)
	fmt.Fprintf(w, "bytes:   %s -> %s\n", humanBytes(r.BytesBefore), humanBytes(r.BytesAfter))
	fmt.Fprintf(w, "tokens:  ~%d -> ~%d (estimated: bytes/4 of what a resume sends)\n", r.TokensBefore, r.TokensAfter)
	if r.Backup != "" {
		fmt.Fprintf(w, "backup:  %s\n", r.Backup)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tKEPT\tDROPPED\tTRIMMED\tKEPT BYTES\tDROPPED BYTES\tSAVED BY MARKERS")
	for _, k := range r.Kinds {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\n", k.Kind, k.Kept, k.Dropped, k.Trimmed,
			humanBytes(k.KeptBytes), humanBytes(k.DroppedBytes), humanBytes(k.TrimmedBytes))
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// trimGC bounds a trim's heap. A trim's live heap is its plan (under a
// hundred bytes per record, without pointers, plus each uuid once: ~20 MB
// for the 87,000 records of a 1 GB transcript) and one buffer of the
// longest line. Left alone, the heap grows to about twice that before a
// collection (71 MiB RSS for that trim; 66 MiB under the 56 MiB limit
// used before); under a 40 MiB soft limit 50 MiB, at no measurable CPU
// cost, since the collector has no pointers to follow in the plan. Over
// the limit (millions of records) the runtime caps the collector at half
// the CPU. A GOMEMLIMIT set by the user is left alone.
func trimGC() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(40 << 20)
	}
}
