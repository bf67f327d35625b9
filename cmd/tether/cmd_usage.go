package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/table"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/internal/todayspend"
	"github.com/tether-dev/tether/usage"
)

type usageOptions struct {
	Kind         usage.Kind
	Since, Until string
	Harness      string
	Cwd          string
	Location     *time.Location
	Breakdown    bool
	JSON         bool
	Corrected    bool
	PricingFile  string
	Style        tableStyle
}

var usageKinds = map[string]usage.Kind{"daily": usage.Daily, "weekly": usage.Weekly, "monthly": usage.Monthly,
	"session": usage.Sessions, "project": usage.Projects, "model": usage.Models}

func (a *App) usageCommand() *cli.Command {
	return &cli.Command{
		Name:      "usage",
		Usage:     "tokens and cost per day, week, month, session, project or model",
		ArgsUsage: "[daily|weekly|monthly|session|project|model]",
		Description: "Counts every token the agents' sessions spent, by ccusage's rules (a response repeated\n" +
			"across files counts once), priced from a table built into tether (see --pricing).\n" +
			"A warm report reads only what the transcripts gained since the last one.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Usage: "from this date on (YYYY-MM-DD or YYYYMMDD)"},
			&cli.StringFlag{Name: "until", Usage: "up to this date (inclusive)"},
			choice(&cli.StringFlag{Name: "harness", Usage: "only this harness: claude-code, codex or opencode"}, harnessNames...),
			&cli.StringFlag{Name: "cwd", Usage: "only the sessions of this directory (and below it)"},
			&cli.StringFlag{Name: "timezone", Aliases: []string{"z"}, Usage: "the time zone dates are taken in (default: local)"},
			&cli.BoolFlag{Name: "breakdown", Aliases: []string{"b"}, Usage: "a line per model under each row"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON (schema: 'tether sessions schema usage')"},
			&cli.BoolFlag{Name: "corrected", Usage: "also count what ccusage drops though it is sound (see docs/usage.md)"},
			&cli.StringFlag{Name: "pricing", Usage: "price from this table instead (the bundled form, or LiteLLM's model_prices_and_context_window.json)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := a.usageOptionsFrom(cmd)
			if err != nil {
				return err
			}
			return a.runUsage(ctx, opts)
		},
	}
}

func (a *App) usageOptionsFrom(cmd *cli.Command) (usageOptions, error) {
	opts := usageOptions{Kind: usage.Daily, Breakdown: cmd.Bool("breakdown"), JSON: cmd.Bool("json"), Corrected: cmd.Bool("corrected"),
		PricingFile: cmd.String("pricing"), Style: a.tableStyle()}
	if cmd.Args().Len() > 1 {
		return opts, usageErr(fmt.Errorf("unexpected argument %q", cmd.Args().Get(1)))
	}
	if arg := cmd.Args().First(); arg != "" {
		k, ok := usageKinds[strings.TrimSuffix(arg, "s")]
		if !ok && arg == "daily" {
			k, ok = usage.Daily, true
		}
		if !ok {
			return opts, usageErr(fmt.Errorf("%q is not a report: daily, weekly, monthly, session, project or model", arg))
		}
		opts.Kind = k
	}
	var err error
	if opts.Since, err = parseUsageDate("--since", cmd.String("since")); err != nil {
		return opts, err
	}
	if opts.Until, err = parseUsageDate("--until", cmd.String("until")); err != nil {
		return opts, err
	}
	if opts.Harness, err = parseHarness(cmd.String("harness")); err != nil {
		return opts, err
	}
	if tz := cmd.String("timezone"); tz != "" {
		if opts.Location, err = time.LoadLocation(tz); err != nil {
			return opts, usageErr(fmt.Errorf("--timezone: %q is not a time zone", tz))
		}
	}
	if d := cmd.String("cwd"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return opts, usageErr(fmt.Errorf("--cwd: %w", err))
		}
		opts.Cwd = filepath.Clean(abs)
	}
	return opts, nil
}

// parseUsageDate reads YYYY-MM-DD or YYYYMMDD (ccusage's form).
func parseUsageDate(flag, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly), nil
		}
	}
	return "", usageErr(fmt.Errorf("%s: %q is not a date (YYYY-MM-DD)", flag, s))
}

func (a *App) runUsage(ctx context.Context, opts usageOptions) error {
	softMemoryLimit()
	pricing := usage.Bundled()
	if opts.PricingFile != "" {
		p, err := usage.LoadPricing(opts.PricingFile)
		if err != nil {
			return fmt.Errorf("--pricing: %w", err)
		}
		pricing = p
	}
	var counted, today *usage.Counted
	var diags []agent.Diagnostic
	var err error
	whole := opts.Cwd == "" && opts.PricingFile == "" // every session, at the bundled prices
	if whole && !opts.Corrected {
		// The default count, which the ledgers keep.
		if counted, diags, err = a.countedUsage(ctx, opts.Harness, pricing); err != nil {
			return err
		}
		if !counted.Exact(opts.Location) || !counted.Exact(a.Now().Location()) {
			counted = nil // a zone off the quarter-hours: from the records
		}
		today = counted
	}
	if counted == nil {
		files, fdiags, err := a.countUsage(ctx, opts.Harness)
		if err != nil {
			return err
		}
		if opts.Cwd != "" {
			files = filesIn(files, opts.Cwd)
		}
		counted, diags = usage.Count(files, pricing, opts.Corrected), fdiags
		if today = counted; opts.Corrected {
			today = usage.Count(files, pricing, false) // today's spend is the default count
		}
	}
	if whole && opts.Harness == "" {
		a.keepToday(today)
	}
	rep := counted.Report(usage.Options{Kind: opts.Kind, Since: opts.Since, Until: opts.Until,
		Location: opts.Location, Breakdown: opts.Breakdown})
	for _, d := range diags {
		fmt.Fprintf(a.IO.ErrOut, "tether: %s: %s\n", termsafe.Printable(d.Path), termsafe.Printable(d.Problem))
	}
	if len(rep.Unpriced) > 0 && !opts.JSON {
		fmt.Fprintf(a.IO.ErrOut, "tether: no price for %s: counted at $0\n", termsafe.Printable(strings.Join(rep.Unpriced, ", ")))
	}
	if opts.JSON {
		return writeUsageJSON(a, rep, pricing)
	}
	return writeUsageTable(a, rep, opts)
}

// usageMemoryLimit is the heap a report's collector aims to stay under
// (debug.SetMemoryLimit; a soft limit: past it the collector runs more
// often, taking at most half the CPU, and nothing fails). A cold report of
// the bench corpus (10,000 sessions, 6.4 GB) peaked at 210 MiB RSS with
// the collector's default pacing and at 123 MiB with this limit, for 5 %
// more CPU (11.1 s against 10.6 s); the issue asks for 128 MiB.
const usageMemoryLimit = 100 << 20

// softMemoryLimit sets usageMemoryLimit unless the user set GOMEMLIMIT.
func softMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(usageMemoryLimit)
	}
}

// countUsage asks every reader that can count usage (agent.UsageCounter)
// for its records, then the archive's reader of the harness for the
// stored copies whose originals are gone (agent.ArchiveUsageCounter).
func (a *App) countUsage(ctx context.Context, harness string) ([]agent.FileUsage, []agent.Diagnostic, error) {
	store := a.usageArchive()
	per, diags, err := perHarness(a, harness, func(ag agent.Lister) ([]agent.FileUsage, []agent.Diagnostic, error) {
		return a.countHarness(ctx, ag, store)
	})
	return slices.Concat(per...), diags, err
}

// countedUsage is the default count of every harness (or of harness):
// each from its ledger, brought up to date, when it can be (an agent
// whose reader is an agent.UsageResumer), else counted in full, its
// ledger made again.
func (a *App) countedUsage(ctx context.Context, harness string, pricing *usage.Pricing) (*usage.Counted, []agent.Diagnostic, error) {
	store := a.usageArchive()
	per, diags, err := perHarness(a, harness, func(ag agent.Lister) (*usage.Counted, []agent.Diagnostic, error) {
		return a.countedHarness(ctx, ag, store, pricing)
	})
	if err != nil {
		return nil, nil, err
	}
	return usage.Merge(per...), diags, nil
}

// usageArchive is the archive whose copies count (nil for none, or for
// an unsafe or unreadable archive config: the live counts alone).
func (a *App) usageArchive() *archive.Store {
	store, _, err := a.archiveStore()
	if err != nil {
		return nil
	}
	return store
}

// perHarness runs count for every agent (or harness's) at once, and
// returns their results in registry order, or the first agent's error.
// A cold count of one harness is mostly a few large files read one by
// one (the largest Codex rollout of a generated corpus, 268 MB, took
// 0.2 s), which the other's fill in.
func perHarness[T any](a *App, harness string, count func(agent.Lister) (T, []agent.Diagnostic, error)) ([]T, []agent.Diagnostic, error) {
	var agents []agent.Lister
	for _, ag := range sessionAgents(a.Loc.ClaudeDir, a.Loc.CodexDir, a.Loc) {
		if harness == "" || harness == ag.Name() {
			agents = append(agents, ag)
		}
	}
	out := make([]T, len(agents))
	diags := make([][]agent.Diagnostic, len(agents))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, ag := range agents {
		wg.Go(func() { out[i], diags[i], errs[i] = count(ag) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", agents[i].Name(), err)
		}
	}
	return out, slices.Concat(diags...), nil
}

// countedHarness is one agent's part of countedUsage.
func (a *App) countedHarness(ctx context.Context, ag agent.Lister, store *archive.Store, pricing *usage.Pricing) (*usage.Counted, []agent.Diagnostic, error) {
	live := ag.Sessions(agent.ReaderConfig{CachePath: catalog.CacheFile(a.Loc.CacheDir, ag.Name()), UsageOnly: true})
	res, resumable := live.(agent.UsageResumer)
	path := catalog.UsageLedgerFile(a.Loc.CacheDir, ag.Name())
	if resumable {
		if c := a.advanceLedger(ctx, ag, res, store, path, pricing); c != nil {
			return c, nil, nil
		}
	}
	files, diags, err := a.countHarness(ctx, ag, store)
	if err != nil || !resumable {
		return usage.Count(files, pricing, false), diags, err
	}
	l, c := usage.NewLedger(path, ag.Name(), res.UsageVersion(), pricing, files)
	if err := l.Save(path, files); err != nil {
		diags = append(diags, agent.Diagnostic{Harness: ag.Name(), Path: path, Problem: "usage ledger not saved: " + err.Error()})
	}
	return c, diags, nil
}

// advanceLedger is the harness's count from its ledger brought up to
// date (nil when it takes a full count: no ledger, or Ledger.Advance
// says so, or a file or the archive could not be listed).
func (a *App) advanceLedger(ctx context.Context, ag agent.Lister, live agent.UsageResumer, store *archive.Store, path string, pricing *usage.Pricing) *usage.Counted {
	l, err := usage.LoadLedger(path, ag.Name(), live.UsageVersion(), pricing)
	if err != nil {
		return nil
	}
	listed, diags, err := live.UsageFiles(ctx, "", nil)
	if err != nil || len(diags) > 0 {
		return nil
	}
	resume := live.ResumeUsage
	if store != nil {
		ar, ok := ag.Sessions(agent.ReaderConfig{Open: catalog.ArchiveOpen, CachePath: catalog.ArchiveCacheFile(a.Loc.CacheDir, ag.Name())}).(agent.UsageResumer)
		if !ok {
			return nil
		}
		copies, diags, err := ar.UsageFiles(ctx, store.HarnessDir(ag.Name()), listed)
		if err != nil || len(diags) > 0 {
			return nil
		}
		archived := make(map[string]bool, len(copies))
		for _, f := range copies {
			archived[f.Path] = true
		}
		listed = append(listed, copies...)
		resume = func(f agent.FileUsage) (agent.FileUsage, bool, error) {
			if archived[f.Path] {
				return ar.ResumeUsage(f)
			}
			return live.ResumeUsage(f)
		}
	}
	if !l.Advance(listed, resume) {
		return nil
	}
	if l.Dirty() {
		_ = l.Save(path, nil) // a ledger not saved is brought up to date again next time
	}
	return l.Counted()
}

// countHarness is one agent's part of countUsage (nothing when its reader
// counts no usage).
func (a *App) countHarness(ctx context.Context, ag agent.Lister, store *archive.Store) ([]agent.FileUsage, []agent.Diagnostic, error) {
	r := ag.Sessions(agent.ReaderConfig{CachePath: catalog.CacheFile(a.Loc.CacheDir, ag.Name()), UsageOnly: true})
	uc, ok := r.(agent.UsageCounter)
	if !ok {
		return nil, nil, nil
	}
	files, diags, err := uc.CountUsage(ctx)
	if err != nil || store == nil {
		return files, diags, err
	}
	ar := ag.Sessions(agent.ReaderConfig{Open: catalog.ArchiveOpen, CachePath: catalog.ArchiveCacheFile(a.Loc.CacheDir, ag.Name())})
	if ac, ok := ar.(agent.ArchiveUsageCounter); ok {
		af, ad, err := ac.CountArchivedUsage(ctx, store.HarnessDir(ag.Name()), files)
		if err != nil {
			ad = append(ad, agent.Diagnostic{Harness: ag.Name(), Path: store.HarnessDir(ag.Name()), Problem: "archived usage not counted: " + err.Error()})
		}
		files, diags = append(files, af...), append(diags, ad...)
	}
	return files, diags, nil
}

// spendKey is the key of a session's spend in sessionSpends' map: its
// transcript, and for OpenCode, whose sessions share one database, the
// session's id too.
func spendKey(harness, path, session string) string {
	if harness == agent.OpenCode {
		return path + "\x00" + session
	}
	return path
}

// filesIn keeps the transcripts of sessions run in dir or below it.
func filesIn(files []agent.FileUsage, dir string) []agent.FileUsage {
	var out []agent.FileUsage
	for _, f := range files {
		in := f.Project == dir || strings.HasPrefix(f.Project, dir+string(filepath.Separator))
		if f.Harness == agent.Claude {
			in = claude.MatchesProjectDir(f.Project, dir)
		}
		if in {
			out = append(out, f)
		}
	}
	return out
}

func writeUsageJSON(a *App, rep usage.Report, pricing *usage.Pricing) error {
	b, err := json.Marshal(usage.ToJSON(rep, pricing))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.IO.Out, "%s\n", b)
	return err
}

// usageRowKey names a table's first column.
var usageRowKey = map[usage.Kind]string{usage.Daily: "date", usage.Weekly: "week", usage.Monthly: "month",
	usage.Sessions: "session", usage.Projects: "project", usage.Models: "model"}

// humanTokens writes n short: 950, 12.3k, 4.56M, 1.20B.
func humanTokens(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	case n < 1_000_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 2, 64) + "M"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 2, 64) + "B"
}

func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }

func writeUsageTable(a *App, rep usage.Report, opts usageOptions) error {
	head := strings.ToUpper(usageRowKey[rep.Kind])
	header := []string{head, "INPUT", "OUTPUT", "CACHE W", "CACHE R", "TOTAL", "COST", "MODELS"}
	cells := func(key string, t usage.Tokens, models string) []string {
		return []string{termsafe.Printable(key), humanTokens(t.Input), humanTokens(t.Output), humanTokens(t.CacheWrite),
			humanTokens(t.CacheRead), humanTokens(t.Total), usd(t.CostUSD), termsafe.Printable(models)}
	}
	var rows [][]string
	for _, r := range rep.Rows {
		rows = append(rows, cells(r.Key, r.Tokens, strings.Join(r.Models, ", ")))
		for _, m := range r.Breakdown {
			rows = append(rows, cells("  └ "+m.Model, m.Tokens, ""))
		}
	}
	if len(rep.Rows) == 0 {
		_, err := fmt.Fprintln(a.IO.Out, "no usage recorded")
		return err
	}
	rows = append(rows, cells("TOTAL", rep.Totals, ""))
	fitLastColumn(rows, header, opts.Style.Width)
	t := &table.Table{Header: header}
	return t.Write(a.IO.Out, rows)
}

// fitLastColumn cuts the models column so a row fits the terminal (width
// 0: piped, nothing cut).
func fitLastColumn(rows [][]string, header []string, width int) {
	if width <= 0 {
		return
	}
	used := 0
	for c := range len(header) - 1 {
		w := table.Width(header[c])
		for _, r := range rows {
			w = max(w, table.Width(r[c]))
		}
		used += w + 2
	}
	room := max(width-used, 8)
	for _, r := range rows {
		r[len(r)-1] = table.Truncate(r[len(r)-1], room)
	}
}

// sessionSpends is every transcript's spend by path, for the harnesses
// of sessions (the same deduplicated count as `tether usage session`: a
// response a fork repeats is its parent's).
func (a *App) sessionSpends(ctx context.Context, sessions []catalog.Session) map[string]*agent.Spend {
	harnesses := map[string]bool{}
	for _, s := range sessions {
		harnesses[s.Harness] = true
	}
	var files []agent.FileUsage
	for h := range harnesses {
		f, _, err := a.countUsage(ctx, h)
		if err == nil {
			files = append(files, f...)
		}
	}
	rep := usage.Build(files, usage.Options{Kind: usage.Sessions})
	bySession := map[string]usage.Row{}
	for _, r := range rep.Rows {
		bySession[r.Key] = r
	}
	unpriced := map[string]bool{}
	for _, m := range rep.Unpriced {
		unpriced[m] = true
	}
	out := map[string]*agent.Spend{}
	for _, f := range files {
		r, ok := bySession[f.Session]
		if !ok {
			continue
		}
		sp := &agent.Spend{InputTokens: r.Input, OutputTokens: r.Output, CacheCreationTokens: r.CacheWrite,
			CacheReadTokens: r.CacheRead, TotalTokens: r.Total, CostUSD: r.CostUSD}
		for _, m := range r.Models {
			sp.Unpriced = sp.Unpriced || unpriced[m]
		}
		out[spendKey(f.Harness, f.Path, f.Session)] = sp
	}
	return out
}

// spendText is a spend for people: "$1.23 (4.56M tokens)".
func spendText(sp *agent.Spend) string {
	s := fmt.Sprintf("%s (%s tokens", usd(sp.CostUSD), humanTokens(sp.TotalTokens))
	if sp.Unpriced {
		s += "; a model without a price counted at $0"
	}
	return s + ")"
}

// keepToday leaves today's spend (local date, every harness) where the
// statusLine's "today" segment reads it; failing to is not an error of
// the report.
func (a *App) keepToday(counted *usage.Counted) {
	now := a.Now()
	day := now.Format(time.DateOnly)
	rep := counted.Report(usage.Options{Kind: usage.Daily, Since: day, Until: day, Location: now.Location()})
	_ = todayspend.Write(todayspend.File(a.Loc.CacheDir), todayspend.Spend{Date: day, CostUSD: rep.Totals.CostUSD, Tokens: rep.Totals.Total, Counted: now})
}
