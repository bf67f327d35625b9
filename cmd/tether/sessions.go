package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/table"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/searchindex"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/summarize"
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

// sessionsBase is what every sessions subcommand needs.
type sessionsBase struct {
	IO      *iostreams.IOStreams
	Catalog *catalog.Catalog
	Now     func() time.Time
}

// catalogFor builds the catalog over the harnesses named ("" for all).
func (a *App) catalogFor(harness string) (*catalog.Catalog, error) {
	return a.catalogIn(harness, a.Loc.ClaudeDir, a.Loc.CodexDir)
}

// catalogIn is catalogFor over other agent directories.
func (a *App) catalogIn(harness, claudeDir, codexDir string) (*catalog.Catalog, error) {
	cfg, err := a.Config()
	if err != nil {
		return nil, err
	}
	var rules []catalog.WorkRule
	for _, r := range cfg.Catalog.WorkRefs {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("config: catalog.work_refs %s: %w", r.Name, err)
		}
		rules = append(rules, catalog.WorkRule{Name: r.Name, Pattern: re})
	}
	// The search index counts the messages of transcripts a list reads
	// only the ends of (opened only when a count is missing and the index
	// changed since it was last asked).
	counts := searchindex.Counts(searchIndexPath(a.Loc))
	c := &catalog.Catalog{}
	for _, ag := range sessionAgents(claudeDir, codexDir) {
		if harness == "" || harness == ag.Name() {
			c.Readers = append(c.Readers, ag.Sessions(agent.ReaderConfig{
				CachePath: catalog.CacheFile(a.Loc.CacheDir, ag.Name()), WorkRules: rules, Windows: a.Windows(), Counts: counts,
			}))
		}
	}
	c.Archive = a.catalogArchive(harness, rules)
	return c, nil
}

// sessionAgents are the agents whose sessions the catalog lists, reading
// these directories: the agents with their session readers, which only
// tether links (tether-hot's agents are the plain ones).
func sessionAgents(claudeDir, codexDir string) []agent.Lister {
	return []agent.Lister{claudesessions.New(claudeDir), codexsessions.New(codexDir)}
}

// withoutCounts makes c's listing leave the search index's message counts
// alone: for search and index, which list and then update the index (the
// next list takes the counts from it, once).
func withoutCounts(c *catalog.Catalog) {
	for _, r := range c.Readers {
		switch r := r.(type) {
		case *claudesessions.Reader:
			r.Counts = nil
		case *codexsessions.Reader:
			r.Counts = nil
		}
	}
}

func (a *App) base(harness string) (sessionsBase, error) {
	c, err := a.catalogFor(harness)
	return sessionsBase{IO: a.IO, Catalog: c, Now: a.Now}, err
}

// parseHarness reads --harness: "" for all, claude-code (or claude, the
// command's name) or codex.
func parseHarness(h string) (string, error) {
	if h == "" {
		return "", nil
	}
	if n := hot.NormalizeHarness(h); n != "" {
		return n, nil
	}
	return "", usageErr(fmt.Errorf("--harness: %q is not claude-code (claude) or codex", h))
}

func (a *App) sessionsCommand() *cli.Command {
	list := a.sessionsListCommand()
	return &cli.Command{
		Name:  "sessions",
		Usage: "list, show, search and resume every Claude Code and Codex session",
		Description: "Without a subcommand, lists sessions (like 'tether sessions list').\n\n" +
			"IDs: a full id or a unique prefix of at least 4 characters, optionally qualified\n" +
			"as claude-code:ID or codex:ID. An ambiguous prefix exits 2 and lists the\n" +
			"candidates; an unknown id exits 3.",
		// The parent lists too, with its own copy of list's flags, local
		// so they do not leak into the other subcommands.
		Flags:  sessionsListFlags(true),
		Action: list.Action,
		Commands: []*cli.Command{
			list,
			a.sessionsShowCommand(),
			a.sessionsResumeCommand(),
			a.sessionsSearchCommand(),
			a.sessionsIndexCommand(),
			a.sessionsSummarizeCommand(),
			a.sessionsSchemaCommand(),
			a.sessionsCacheCommand(),
		},
	}
}

// ---- list

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
	// Summary adds the SUMMARY column; DataDir is where summaries are.
	Summary bool
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
			listGC()
			b, err := a.base(h)
			if err != nil {
				return err
			}
			opts := sessionsListOptions{sessionsBase: b, Marks: a.staleMarks(), Repo: cmd.String("repo"), State: st, All: cmd.Bool("all"),
				NoContent: cmd.Bool("no-content"), JSON: cmd.Bool("json"), Limit: int(cmd.Int("limit")), Style: a.tableStyle(),
				Summary: cmd.Bool("summary"), DataDir: a.Loc.DataDir, Index: searchIndexPath(a.Loc)}
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
		choice(&cli.StringFlag{Name: "harness", Local: local, Usage: "only sessions of `HARNESS` (claude-code, alias claude, or codex)"}, hot.HarnessClaude, hot.HarnessCodex),
		&cli.StringFlag{Name: "repo", Local: local, Usage: "only sessions in the repository `ID` (github.com/org/repo, org/repo, or a path in it: . from any of its directories)"},
		choice(&cli.StringFlag{Name: "state", Local: local, Usage: "only sessions in `STATE` (running, resumable, stale, unknown or archived)"},
			catalog.StateRunning, catalog.StateResumable, stateStale, catalog.StateUnknown, catalog.StateArchived),
		&cli.BoolFlag{Name: "all", Local: local, Usage: "include archived Codex threads"},
		&cli.BoolFlag{Name: "no-content", Local: local, Usage: "omit every prompt-derived field (titles become the directory name)"},
		&cli.BoolFlag{Name: "json", Local: local, Usage: "print JSON (sessions and diagnostics; see 'tether sessions schema')"},
		&cli.IntFlag{Name: "limit", Local: local, Usage: "show at most `N` sessions (0: all)"},
		&cli.BoolFlag{Name: "summary", Local: local, Usage: "add a SUMMARY column: the stored summary's title ('tether sessions summarize'; * when the session changed since)"},
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
	if (opts.JSON || opts.Summary) && !opts.NoContent && opts.DataDir != "" {
		summarize.AttachAll(opts.DataDir, out)
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
		printSessionTable(opts.IO.Out, out, opts.Now(), opts.Style, ab, opts.Summary)
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// summaryCell is the summary's title, starred when the session changed
// after it was made.
func summaryCell(sum *catalog.Summary) string {
	if sum == nil {
		return "-"
	}
	t := cell(termsafe.Text(sum.Title), 60)
	if !sum.Current {
		t += " *"
	}
	return t
}

// cell makes s safe and short for a table cell: no tabs or newlines, no
// terminal controls (termsafe), at most max terminal cells.
func cell(s string, max int) string {
	if len(s) <= max && plainASCII(s) {
		// Nothing to collapse, escape or cut (one byte, one cell): a
		// warm list of 10,000 sessions spent ~15 ms of CPU here.
		return s
	}
	if p, ok := strings.CutSuffix(s, "…"); ok && plainASCII(p) && table.Width(s) <= max {
		// A title the catalog cut: as above, with the ellipsis (neither
		// white space nor a terminal control) after it.
		return s
	}
	s = termsafe.String(strings.Join(strings.Fields(s), " "))
	if s == "" {
		return "-"
	}
	return table.Truncate(s, max)
}

// plainASCII reports whether s is non-empty printable ASCII with single
// inner spaces only, which cell leaves unchanged.
func plainASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return false
		}
	}
	return true
}

// relTime says how long ago t was, compactly: 45s, 12m, 3h, 5d, 2026-01-02.
// relDateAfter is the age from which relTime gives the date.
const relDateAfter = 60 * 24 * time.Hour

func relTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "-"
	case d < 0:
		return "now"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	case d < relDateAfter:
		return strconv.Itoa(int(d.Hours()/24)) + "d"
	}
	return isoDate(t.Local())
}

// isoDate is t.Format("2006-01-02") without the layout parser: a list of
// 10,000 old sessions formats 10,000 dates (~7 ms through Format).
func isoDate(t time.Time) string {
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		return t.Format("2006-01-02")
	}
	b := []byte{byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
		byte('0' + int(m)/10), byte('0' + int(m)%10), '-', byte('0' + d/10), byte('0' + d%10)}
	return string(b)
}

// ---- id resolution shared by show and resume

// resolveSession lists everything (archived included) and resolves id:
// ambiguous or too short → exit 2, unknown → exit 3.
func resolveSession(ctx context.Context, c *catalog.Catalog, id string) (catalog.Session, error) {
	s, err := c.Resolve(ctx, id)
	return s, resolveErr(err)
}

// resolveErr gives a catalog.Resolve error its exit status.
func resolveErr(err error) error {
	var amb *catalog.AmbiguousError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &amb), errors.Is(err, catalog.ErrShortPrefix):
		return usageErr(err)
	case errors.Is(err, catalog.ErrNotFound):
		return notFound(err)
	}
	return err
}

func oneID(cmd *cli.Command) (string, error) {
	if cmd.NArg() != 1 {
		return "", usageErr(fmt.Errorf("%s takes one session ID, got %d", cmd.Name, cmd.NArg()))
	}
	return cmd.Args().First(), nil
}

// ---- show

type sessionsShowOptions struct {
	sessionsBase
	Marks     map[string]state.StaleMark
	DataDir   string
	ID        string
	JSON      bool
	NoContent bool
}

func (a *App) sessionsShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one session in full: prompts, counts, context curve, evidence",
		ArgsUsage: "ID",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "no-content", Usage: "omit every prompt-derived field"},
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
			return runSessionsShow(ctx, sessionsShowOptions{sessionsBase: b, Marks: a.staleMarks(), DataDir: a.Loc.DataDir, ID: id, JSON: cmd.Bool("json"), NoContent: cmd.Bool("no-content")})
		},
	}
}

func runSessionsShow(ctx context.Context, opts sessionsShowOptions) error {
	s, err := resolveSession(ctx, opts.Catalog, opts.ID)
	if err != nil {
		return err
	}
	full, err := opts.Catalog.Get(ctx, s)
	if err != nil {
		return err
	}
	one := []catalog.Session{full}
	markStale(one, opts.Marks)
	full = one[0]
	if opts.DataDir != "" {
		summarize.Attach(opts.DataDir, &full)
	}
	if opts.NoContent {
		full.StripContent()
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, full)
	}
	markFile := ""
	if full.Stale != nil {
		markFile = opts.Marks[full.ID].Path
	}
	printSession(opts.IO.Out, full, opts.Now(), markFile)
	return nil
}

// printSession writes show's rows; markFile is the stale mark's file ("":
// not said).
func printSession(w io.Writer, s catalog.Session, now time.Time, markFile string) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-14s %s\n", k+":", termsafe.String(v))
		}
	}
	row("session", s.Key())
	row("title", fmt.Sprintf("%s (%s)", s.Title, s.TitleSource))
	row("cwd", s.Cwd)
	if s.IdentityRoot != s.Cwd {
		row("identity root", s.IdentityRoot)
	}
	row("branch", s.GitBranch)
	row("origin", s.GitOrigin)
	state := s.State
	if s.Runtime != nil {
		state += fmt.Sprintf(" (pid %d", s.Runtime.PID)
		if s.Runtime.Status != "" {
			state += ", " + s.Runtime.Status
		}
		if s.Runtime.Tmux != "" {
			state += ", tmux " + s.Runtime.Tmux
		}
		state += ")"
	}
	if s.Archived {
		state += ", archived"
	}
	if st := s.Stale; st != nil && s.State != catalog.StateRunning {
		state = fmt.Sprintf("%s (%s, on %s)", stateStale, st.Reason, st.At.Local().Format("2006-01-02 15:04"))
	}
	row("state", state)
	if s.Stale != nil {
		row("fix", cmp.Or(s.Stale.Fix, "none known: resuming it starts a fresh session"))
		if markFile != "" {
			// A mark outlives nothing but an unchanged transcript; one
			// the user knows to be wrong goes by hand.
			row("clear mark", "rm "+shquote.Quote(markFile)+" (tether then tries the resume again)")
		}
	}
	row("created", fmt.Sprintf("%s (%s ago)", s.Created.Local().Format(time.DateTime), relTime(now, s.Created)))
	row("last activity", fmt.Sprintf("%s (%s ago)", s.LastActivity.Local().Format(time.DateTime), relTime(now, s.LastActivity)))
	if s.LastHumanActivity != nil {
		row("last human", fmt.Sprintf("%s (%s ago)", s.LastHumanActivity.Local().Format(time.DateTime), relTime(now, *s.LastHumanActivity)))
	}
	row("origin kind", strings.TrimSpace(s.Origin+" "+s.CLIVersion))
	row("model", s.Model)
	if s.Counts != nil {
		c := s.Counts
		row("counts", fmt.Sprintf("%d %s, %d %s, %d %s", c.HumanPrompts, plural(c.HumanPrompts, "prompt", "prompts"),
			c.Messages, plural(c.Messages, "message", "messages"), c.ToolCalls, plural(c.ToolCalls, "tool call", "tool calls")))
	}
	if s.Context != nil {
		row("context", s.Context.Text())
	}
	if len(s.ContextCurve) > 1 {
		row("context curve", Sparkline(s.ContextCurve))
	}
	row("transcript", s.Source)
	if s.Archive != nil {
		row("restores to", s.Archive.Restore+" (from tether's archive, on resume or 'tether archive restore')")
	}
	row("resume", catalog.ResumeSpec.ShellCommand(s.Resume))
	printSummary(w, s.Summary, now)
	if len(s.RecentPrompts) > 0 {
		fmt.Fprintln(w, "recent prompts:")
		for _, p := range s.RecentPrompts {
			fmt.Fprintf(w, "  > %s\n", cell(p, 160))
		}
	}
	if ev := s.Evidence; ev != nil {
		list := func(title string, items []string) {
			if len(items) == 0 {
				return
			}
			fmt.Fprintf(w, "%s:\n", title)
			for i, it := range items {
				if i == 20 {
					fmt.Fprintf(w, "  … %d more\n", len(items)-20)
					break
				}
				fmt.Fprintf(w, "  %s\n", termsafe.String(it))
			}
		}
		var repos, commits, refs []string
		for _, r := range ev.Repos {
			repos = append(repos, strings.TrimSpace(r.Root+"  "+r.ID))
		}
		for _, c := range ev.CommitsCreated {
			commits = append(commits, strings.TrimSpace(fmt.Sprintf("%s %s  %s", c.SHA, c.Branch, c.Subject)))
		}
		for _, r := range ev.WorkRefs {
			refs = append(refs, r.Ref+"  ("+r.Rule+")")
		}
		list("repositories", repos)
		list("files modified", ev.FilesModified)
		list("files read", ev.FilesRead)
		list("commits created", commits)
		list("commits referenced", ev.CommitsReferenced)
		list("work references", refs)
	}
}

// Sparkline draws values as one line of block characters, at most 60
// wide (longer series are bucketed, keeping each bucket's maximum).
func Sparkline(vals []int64) string {
	const width = 60
	if len(vals) > width {
		b := make([]int64, width)
		for i, v := range vals {
			j := i * width / len(vals)
			b[j] = max(b[j], v)
		}
		vals = b
	}
	var top int64
	for _, v := range vals {
		top = max(top, v)
	}
	bars := []rune("▁▂▃▄▅▆▇█")
	var sb strings.Builder
	for _, v := range vals {
		i := 0
		if top > 0 {
			i = int(v * int64(len(bars)-1) / top)
		}
		sb.WriteRune(bars[i])
	}
	return sb.String()
}

// ---- resume

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
		Description: "Changes to the session's recorded cwd and runs 'tether run claude --resume ID' or\n" +
			"'tether run codex resume ID' in place of tether: the wrapper's preflight, notice and\n" +
			"fallback apply as to a resume typed in a shell. A running session is refused (exit 4)\n" +
			"unless --force. --tmux[=NAME] opens it in a detached tmux session instead (NAME, else\n" +
			"the name remembered for this session, else the cwd base name; -2, -3 … when a\n" +
			"live session has that name) and attaches, or, with no client to attach, says how\n" +
			"to; the name is remembered in $XDG_STATE_HOME/tether/bindings.json.\n\n" +
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

// ---- cache

func (a *App) sessionsCacheCommand() *cli.Command {
	return &cli.Command{
		Name:  "cache",
		Usage: "manage the catalog cache",
		Commands: []*cli.Command{{
			Name:  "clear",
			Usage: "delete the catalog cache (it is rebuilt on the next list)",
			Action: func(ctx context.Context, cmd *cli.Command) error {
				n, err := catalog.ClearCache(a.Loc.CacheDir)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.IO.Out, "removed %d cache %s from %s\n", n, plural(n, "file", "files"), a.Loc.CacheDir)
				return nil
			},
		}},
	}
}

// ---- schema

func (a *App) sessionsSchemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print the JSON Schema of a --json output (list, show or search)",
		ArgsUsage: "[list|show|search]",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 1 {
				return usageErr(fmt.Errorf("schema takes at most one name, got %d", cmd.NArg()))
			}
			name := cmd.Args().First()
			if name == "" {
				name = "list"
			}
			b, err := catalog.Schema(name)
			if err != nil {
				return usageErr(err)
			}
			_, err = a.IO.Out.Write(b)
			return err
		},
	}
}
