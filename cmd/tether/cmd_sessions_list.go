package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/searchindex"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/summarize"
)

type sessionsListOptions struct {
	sessionsBase
	Since     time.Duration
	Cwd       string // identity root to match ("" for any)
	Repo      string
	State     string
	All       bool
	NoContent bool
	JSON      bool
	Limit     int
	// Columns are the table's columns (header names, see sessionColumns);
	// with SUMMARY among them, summaries are read from DataDir.
	Columns []string
	// Spends, when set (COST among Columns), gives the sessions' spends:
	// the COST column and spend in --json.
	Spends  func(context.Context, []catalog.Session) map[string]*agent.Spend
	DataDir string
	// Listed, when set, gets every session listed (before filters), to
	// refresh the completion index.
	Listed func([]catalog.Session)
	// Marks are the failed resumes on record (see markStale).
	Marks map[string]state.StaleMark
	// Style is the table's terminal width and colour.
	Style tableStyle
	// Index is the search index file: while there is none, a terminal
	// is told how to fill unknown message counts.
	Index string
}

func (a *App) sessionsListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list sessions, newest activity first",
		Flags: sessionsListFlags(false),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				if len(cmd.Commands) > 0 {
					// `tether sessions lst`: a mistyped subcommand.
					return unknownCommand(cmd, cmd.Args().First())
				}
				return usageErr(fmt.Errorf("unexpected argument %q (see 'tether sessions --help')", cmd.Args().First()))
			}
			h, err := parseHarness(cmd.String("harness"))
			if err != nil {
				return err
			}
			st := cmd.String("state")
			if st != "" && st != catalog.StateRunning && st != catalog.StateResumable && st != catalog.StateUnknown && st != stateStale && st != catalog.StateArchived {
				return usageErr(fmt.Errorf("--state: %q is not running, resumable, stale, unknown or archived", st))
			}
			if cmd.Int("limit") < 0 {
				return usageErr(errors.New("--limit: must be 0 or more"))
			}
			cols, err := a.sessionColumns(cmd)
			if err != nil {
				return err
			}
			listGC()
			b, err := a.base(h)
			if err != nil {
				return err
			}
			opts := sessionsListOptions{sessionsBase: b, Marks: a.staleMarks(), Repo: cmd.String("repo"), State: st, All: cmd.Bool("all"),
				NoContent: cmd.Bool("no-content"), JSON: cmd.Bool("json"), Limit: int(cmd.Int("limit")), Style: a.tableStyle(),
				Columns: cols, DataDir: a.Loc.DataDir, Index: searchIndexPath(a.Loc)}
			if slices.Contains(cols, costColumn) {
				// Only then: spends read the transcripts' new bytes.
				opts.Spends = a.sessionSpends
			}
			if h == "" {
				// A listing of every harness is the completion index too.
				opts.Listed = a.writeCompletionIndex
			}
			if s := cmd.String("since"); s != "" {
				d, err := parseDuration(s)
				if err != nil {
					return usageErr(fmt.Errorf("--since: %w", err))
				}
				opts.Since = d
			}
			if c := cmd.String("cwd"); c != "" {
				opts.Cwd = identity.Resolve(c).Path
			}
			return runSessionsList(ctx, opts)
		},
	}
}

// listGC trades collections for memory a list can afford: a warm list of
// 10,000 sessions spent ~45 ms of its ~270 ms of CPU in the collector at
// the default GOGC=100 and ~60 MiB RSS. A list allocates ~35 MB in all,
// so under a 48 MiB soft limit it needs no collection by rate at all:
// with GOGC off the collector runs only when the heap nears the limit
// (never, at 10,000 sessions: ~10% less CPU than GOGC=400, +2 MiB RSS),
// before it outgrows the 64 MiB budget. A GOGC or GOMEMLIMIT set
// by the user is left alone; with only GOMEMLIMIT set, GOGC is 400 (the
// user's limit may be far above the budget). restore puts back what it
// changed (search, after its listing). (The heap is not advised for huge
// pages: measured at 3,000 sessions, the advice bought ~6% of a warm
// list's wall time, within the run-to-run noise, under the 10% a
// listing's optimisation must buy.)
func listGC() (restore func()) {
	var (
		gc, limit     = 0, int64(0)
		setGC, setLim bool
	)
	ownLimit := os.Getenv("GOMEMLIMIT") == ""
	if ownLimit {
		limit, setLim = debug.SetMemoryLimit(48<<20), true
	}
	if os.Getenv("GOGC") == "" {
		percent := 400
		if ownLimit {
			percent = -1 // off: the limit alone
		}
		gc, setGC = debug.SetGCPercent(percent), true
	}
	return func() {
		if setGC {
			debug.SetGCPercent(gc)
		}
		if setLim {
			debug.SetMemoryLimit(limit)
		}
	}
}

func sessionsListFlags(local bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "since", Local: local, Usage: "only sessions active within `DURATION` (e.g. 90m, 24h, 7d)"},
		&cli.StringFlag{Name: "cwd", Local: local, Usage: "only sessions whose directory has the same identity root as `DIR` (symlinks and trailing slashes match)"},
		choice(&cli.StringFlag{Name: "harness", Local: local, Usage: "only sessions of `HARNESS` (claude-code, alias claude, codex or opencode)"}, harnessNames...),
		&cli.StringFlag{Name: "repo", Local: local, Usage: "only sessions in the repository `ID` (github.com/org/repo, org/repo, or a path in it: . from any of its directories)"},
		choice(&cli.StringFlag{Name: "state", Local: local, Usage: "only sessions in `STATE` (running, resumable, stale, unknown or archived)"},
			catalog.StateRunning, catalog.StateResumable, stateStale, catalog.StateUnknown, catalog.StateArchived),
		&cli.BoolFlag{Name: "all", Local: local, Usage: "include archived Codex threads"},
		&cli.BoolFlag{Name: "no-content", Local: local, Usage: "omit every prompt-derived field (titles become the directory name)"},
		&cli.BoolFlag{Name: "json", Local: local, Usage: "print JSON (sessions and diagnostics; see 'tether sessions schema')"},
		&cli.IntFlag{Name: "limit", Local: local, Usage: "show at most `N` sessions (0: all)"},
		&cli.StringFlag{Name: "columns", Local: local, Usage: "the table's columns: `LIST`, comma-separated, in that order (" + strings.Join(config.SessionColumns, ",") +
			"; any case), or +NAME to add to the default ones (+cost,+summary); [catalog] columns in the config sets the default. --json has every field whatever the columns (spend only with COST)"},
		&cli.BoolFlag{Name: "cost", Local: local, Usage: "the same as --columns +cost: COST, the session's spend as 'tether usage session' counts it (reads the transcripts' new bytes; [catalog] cost = true in the config makes it a default column, --cost=false leaves it out)"},
		&cli.BoolFlag{Name: "summary", Local: local, Usage: "the same as --columns +summary: SUMMARY, the stored summary's title ('tether sessions summarize'; * when the session changed since; --summary=false leaves it out)"},
	}
}

func runSessionsList(ctx context.Context, opts sessionsListOptions) error {
	all, diags, err := opts.Catalog.List(ctx, catalog.ListOptions{All: opts.All})
	if err != nil && len(all) == 0 {
		return err
	}
	markStale(all, opts.Marks)
	out := filterSessions(all, opts)
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	if (opts.JSON || slices.Contains(opts.Columns, summaryColumn)) && !opts.NoContent && opts.DataDir != "" {
		summarize.AttachAll(opts.DataDir, out)
	}
	if opts.Spends != nil {
		spends := opts.Spends(ctx, out)
		for i := range out {
			out[i].Spend = spends[spendKey(out[i].Harness, out[i].Source, out[i].ID)]
		}
	}
	if diags == nil {
		diags = []catalog.Diagnostic{}
	}
	if opts.Listed != nil && err == nil {
		// The completion index is written while the output is (~10 ms at
		// 10,000 sessions, off the critical path): from here on nothing
		// writes to the sessions.
		done := make(chan struct{})
		go func() {
			defer close(done)
			opts.Listed(all)
		}()
		defer func() { <-done }()
	}
	if opts.JSON {
		if err != nil {
			// A reader failed but others worked: say so, keep the output.
			fmt.Fprintf(opts.IO.ErrOut, "tether: %v\n", err)
		}
		return writeJSON(opts.IO.Out, catalog.ListOutput{Sessions: out, Diagnostics: diags})
	}
	if len(out) > 0 {
		var ab *identity.Abbreviator // nil: among out's ids, which are all's
		if len(out) != len(all) {
			ab = catalog.Abbrev(all)
		}
		printSessionTable(opts.IO.Out, out, opts.Now(), opts.Style, ab, opts.Columns)
		countsHint(opts, out)
	} else {
		// No header over an empty table: one line that says why.
		if len(all) == 0 {
			fmt.Fprintf(opts.IO.ErrOut, "tether: no Claude Code or Codex sessions yet (looked in %s); they are listed here once you run claude or codex\n",
				strings.Join(storageDirs(opts.Catalog), " and "))
		} else {
			fmt.Fprintf(opts.IO.ErrOut, "tether: none of the %d sessions match\n", len(all))
		}
	}
	if len(diags) > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "tether: %d %s could not be read (see --json diagnostics)\n",
			len(diags), plural(len(diags), "file", "files"))
	}
	return err
}

// filterSessions returns the sessions of all that opts keep. With no
// filter that is all itself: copying 10,000 Sessions (480 bytes each)
// cost ~5 ms.
func filterSessions(all []catalog.Session, opts sessionsListOptions) []catalog.Session {
	if opts.Since <= 0 && opts.Cwd == "" && opts.State == "" && opts.Repo == "" && !opts.NoContent {
		return all
	}
	var repos repoMemo
	// Session is a large struct: growing the slice by appends copied it
	// ~15 times over at 10,000 sessions.
	out := make([]catalog.Session, 0, len(all))
	for _, s := range all {
		switch {
		case opts.Since > 0 && s.LastActivity.Before(opts.Now().Add(-opts.Since)):
		case opts.Cwd != "" && s.IdentityRoot != opts.Cwd:
		case opts.State == stateStale && s.Stale == nil:
		case opts.State != "" && opts.State != stateStale && s.State != opts.State:
		case opts.Repo != "" && !repos.matches(s, opts.Repo):
		default:
			if opts.NoContent {
				s.StripContent()
			}
			out = append(out, s)
		}
	}
	return out
}

// countsHint tells a terminal once per list how unknown message counts
// ("-" in MSGS) get filled, while no search index exists (once one does,
// counts are unknown only for sessions that grew a lot since it was last
// brought up to date, which the next search or index does).
func countsHint(opts sessionsListOptions, out []catalog.Session) {
	if opts.Style.Width == 0 || !opts.IO.StderrTTY || opts.Index == "" {
		return
	}
	unknown := 0
	for i := range out {
		if out[i].Messages == nil {
			unknown++
		}
	}
	if unknown == 0 {
		return
	}
	if n, err := searchindex.Size(opts.Index); err != nil || n > 0 {
		return
	}
	msg := fmt.Sprintf("tether: %s in MSGS: the messages of %d %s are not counted yet; 'tether sessions index' counts them",
		unknownCount, unknown, plural(unknown, "session", "sessions"))
	if opts.IO.ColorErr() {
		msg = "\x1b[2m" + msg + "\x1b[0m"
	}
	fmt.Fprintln(opts.IO.ErrOut, msg)
}

// storageDirs names where the catalog's readers look, for a message that
// says where nothing was found.
func storageDirs(c *catalog.Catalog) []string {
	var dirs []string
	for _, r := range c.Readers {
		if r, ok := r.(interface{ StorageDir() string }); ok {
			dirs = append(dirs, r.StorageDir())
		}
	}
	return dirs
}

// repoMemo maps a session's cwd to its repository once per cwd, and
// remembers which repository roots the --repo value names.
type repoMemo struct {
	cwds  map[string][2]string
	roots []string // nil until computed
}

func (m *repoMemo) matches(s catalog.Session, want string) bool {
	if m.cwds == nil {
		m.cwds = map[string][2]string{}
		m.roots = wantedRepoRoots(want)
	}
	r, ok := m.cwds[s.Cwd]
	if !ok {
		root, id := catalog.RepoOf(s.Cwd)
		r = [2]string{root, id}
		m.cwds[s.Cwd] = r
	}
	want = strings.TrimSuffix(want, "/")
	ids := []string{r[1], catalog.RemoteID(s.GitOrigin)}
	for _, id := range ids {
		if id != "" && (id == want || strings.HasSuffix(id, "/"+want)) {
			return true
		}
	}
	return r[0] != "" && slices.Contains(m.roots, r[0])
}

// wantedRepoRoots are the repository roots --repo VALUE can name as a
// path: VALUE itself (as typed, and with symlinks resolved) and, for an
// absolute path or one spelled relative to the working directory (".",
// "..", "./x", "../x"), the repository holding it, as the catalog finds a
// session's repository from its cwd. So '--repo .' works from any
// subdirectory; a bare "org/repo" stays an id.
func wantedRepoRoots(want string) []string {
	resolved := identity.Resolve(want).Path
	roots := []string{want, resolved}
	explicit := filepath.IsAbs(want) || want == "." || want == ".." ||
		strings.HasPrefix(want, "./") || strings.HasPrefix(want, "../")
	if !explicit {
		return roots
	}
	abs, err := filepath.Abs(want)
	if err != nil {
		return roots
	}
	for _, p := range []string{abs, resolved} {
		if root, _ := catalog.RepoOf(p); root != "" {
			roots = append(roots, root)
		}
	}
	return roots
}
