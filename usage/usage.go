// Package usage counts what the agents' sessions spent: tokens and cost
// per day, week, month, session, project and model, from the usage
// records the agents' readers extract (agent.UsageCounter), priced from a
// bundled table. The counting rules are ccusage's (docs/usage.md): a
// response repeated across files (a fork, a resumed copy, a sidechain
// replay) counts once, its fullest copy.
package usage

import (
	"slices"
	"sort"
	"time"

	"github.com/tether-dev/tether/agent"
)

// Kind is what a report's rows are.
type Kind string

// The reports.
const (
	Daily    Kind = "daily"
	Weekly   Kind = "weekly"
	Monthly  Kind = "monthly"
	Sessions Kind = "sessions"
	Projects Kind = "projects"
	Models   Kind = "models"
)

// Options shape a report.
type Options struct {
	Kind Kind
	// Since and Until bound the records' local dates (YYYY-MM-DD,
	// inclusive; "" for no bound).
	Since, Until string
	// Location is the time zone dates are taken in (nil: time.Local).
	Location *time.Location
	Pricing  *Pricing
	// Breakdown keeps each row's per-model sums.
	Breakdown bool
	// Corrected counts the records ccusage drops though they are sound
	// (agent.UsageRecord.Quirk; docs/usage.md).
	Corrected bool
}

// Tokens are a sum of records.
type Tokens struct {
	Input, Output, CacheWrite, CacheRead, Reasoning, Total int64
	CostUSD                                                float64
}

func (t *Tokens) add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheWrite += o.CacheWrite
	t.CacheRead += o.CacheRead
	t.Reasoning += o.Reasoning
	t.Total += o.Total
	t.CostUSD += o.CostUSD
}

// Row is one period's (or session's, project's, model's) sums.
type Row struct {
	Key string
	Tokens
	// Models are the models used, by cost (most first).
	Models []string
	// Breakdown is the per-model sums, when asked for.
	Breakdown []ModelRow
	// LastActivity is the newest record's time (Unix ms).
	LastActivity int64
	// Harnesses are the agents whose records the row holds.
	Harnesses []string
}

// ModelRow is one model's part of a row.
type ModelRow struct {
	Model string
	Tokens
}

// Report is a whole report.
type Report struct {
	Kind      Kind
	Rows      []Row
	Totals    Tokens
	ByHarness map[string]Tokens
	// Unpriced are the models with tokens the table has no price for
	// (their cost counts as 0).
	Unpriced []string
	// Skipped counts the usage lines the readers could not count;
	// Duplicates the records dropped as copies of another.
	Skipped, Duplicates int
}

// counted is one record that survived deduplication.
type counted struct {
	file *agent.FileUsage
	rec  *agent.UsageRecord
	cost float64
}

// Counted is what a set of files spent once deduplicated and priced,
// in sums (Sum): what every report over those files is built from (a
// warm `tether usage` builds two, the report and today's spend, from one
// count).
type Counted struct {
	sums []FileSums
	// kept are the records the sums were made of (nil for a count kept
	// by a ledger), for an exact count in a zone off the quarter-hours.
	kept                []counted
	pricing             *Pricing
	skipped, duplicates int
	// dates are the sums' spans' dates in each zone asked about, worked
	// out once: a report asks whether they are exact in two zones and
	// makes two reports (its own and today's spend).
	dates map[*time.Location]*spanDates
}

// spanDates are the dates of c's sums' spans in loc.
func (c *Counted) spanDates(loc *time.Location) *spanDates {
	d := c.dates[loc]
	if d == nil {
		d = newSpanDates(loc, spanMS)
		for _, fs := range c.sums {
			for _, s := range fs.Sums {
				d.date(s.Span)
			}
		}
		if c.dates == nil {
			c.dates = map[*time.Location]*spanDates{}
		}
		c.dates[loc] = d
	}
	return d
}

// Count deduplicates and prices files' records (in the order their
// agents sort them: a repeated record's first copy is kept unless a
// later one is fuller); corrected keeps what ccusage drops though sound
// (Options.Corrected). A nil pricing is the bundled table.
func Count(files []agent.FileUsage, pricing *Pricing, corrected bool) *Counted {
	if pricing == nil {
		pricing = Bundled()
	}
	c := &Counted{pricing: pricing}
	var rep Report
	c.kept = dedupe(files, Options{Pricing: pricing, Corrected: corrected}, &rep)
	c.sums = sumsOf(c.kept, pricing, spanMS)
	c.skipped, c.duplicates = rep.Skipped, rep.Duplicates
	for i := range files {
		c.skipped += files[i].Skipped
		c.duplicates += files[i].Folded
	}
	return c
}

// Build makes the report over files (Count, then Report).
func Build(files []agent.FileUsage, opts Options) Report {
	return Count(files, opts.Pricing, opts.Corrected).Report(opts)
}

// Exact reports whether c's reports in loc are exact: its sums' spans
// each lie within one quarter-hour offset of loc (true of every zone in
// use), or it still has the records to count by.
func (c *Counted) Exact(loc *time.Location) bool {
	return c.kept != nil || c.aligned(loc)
}

func (c *Counted) aligned(loc *time.Location) bool {
	if loc == nil {
		loc = time.Local
	}
	return c.spanDates(loc).aligned
}

// Report makes one report of the counted records (opts.Pricing and
// opts.Corrected are Count's).
func (c *Counted) Report(opts Options) Report {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	sums, dates := c.sums, c.spanDates(opts.Location)
	if c.kept != nil && !c.aligned(opts.Location) {
		// A zone off the quarter-hours: each record on its own date.
		sums, dates = sumsOf(c.kept, c.pricing, 1), newSpanDates(opts.Location, 1)
	}
	rep := Report{Kind: opts.Kind, ByHarness: map[string]Tokens{}, Skipped: c.skipped, Duplicates: c.duplicates}
	unpriced := map[string]bool{}
	rows := map[string]*rowAcc{}
	for _, fs := range sums {
		for _, s := range fs.Sums {
			date := dates.date(s.Span)
			if (opts.Since != "" && date < opts.Since) || (opts.Until != "" && date > opts.Until) {
				continue
			}
			if s.Unpriced {
				unpriced[s.Model] = true
			}
			key := rowKey(opts.Kind, date, s.Model, fs.File)
			acc := rows[key]
			if acc == nil {
				acc = &rowAcc{models: map[string]*Tokens{}}
				rows[key] = acc
			}
			acc.add(s.Tokens, s.Model, s.Last, fs.File.Harness)
			rep.Totals.add(s.Tokens)
			h := rep.ByHarness[fs.File.Harness]
			h.add(s.Tokens)
			rep.ByHarness[fs.File.Harness] = h
		}
	}
	for k, acc := range rows {
		rep.Rows = append(rep.Rows, acc.row(k, opts.Breakdown))
	}
	sortRows(rep.Rows, opts.Kind)
	for m := range unpriced {
		rep.Unpriced = append(rep.Unpriced, m)
	}
	sort.Strings(rep.Unpriced)
	return rep
}

// reportedModel is the model a record is reported under: a fast-tier
// record's with "-fast".
func reportedModel(r *agent.UsageRecord) string {
	if r.Fast && r.Model != "" {
		return r.Model + "-fast"
	}
	return r.Model
}

func rowKey(k Kind, date, model string, f *agent.FileUsage) string {
	switch k {
	case Weekly:
		return weekStart(date)
	case Monthly:
		return date[:7]
	case Sessions:
		return f.Session
	case Projects:
		return f.Project
	case Models:
		return model
	}
	return date
}

// weekStart is the Sunday that starts date's week (ccusage's default).
func weekStart(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.AddDate(0, 0, -int(t.Weekday())).Format(time.DateOnly)
}

func tokensOf(c counted) Tokens {
	r := c.rec
	return Tokens{Input: r.Input, Output: r.Output, CacheWrite: r.CacheWrite, CacheRead: r.CacheRead,
		Reasoning: r.Reasoning, Total: r.Tokens(), CostUSD: c.cost}
}

// rowAcc sums one row.
type rowAcc struct {
	Tokens
	models    map[string]*Tokens
	order     []string
	last      int64
	harnesses []string
}

func (a *rowAcc) add(t Tokens, model string, at int64, harness string) {
	a.Tokens.add(t)
	a.last = max(a.last, at)
	if !slices.Contains(a.harnesses, harness) {
		a.harnesses = append(a.harnesses, harness)
	}
	if model == "" {
		return
	}
	m := a.models[model]
	if m == nil {
		m = &Tokens{}
		a.models[model] = m
		a.order = append(a.order, model)
	}
	m.add(t)
}

func (a *rowAcc) row(key string, breakdown bool) Row {
	r := Row{Key: key, Tokens: a.Tokens, LastActivity: a.last, Harnesses: a.harnesses}
	for _, m := range a.order {
		r.Breakdown = append(r.Breakdown, ModelRow{Model: m, Tokens: *a.models[m]})
	}
	sort.SliceStable(r.Breakdown, func(i, j int) bool { return r.Breakdown[i].CostUSD > r.Breakdown[j].CostUSD })
	for _, b := range r.Breakdown {
		r.Models = append(r.Models, b.Model)
	}
	if !breakdown {
		r.Breakdown = nil
	}
	sort.Strings(r.Harnesses)
	return r
}

// sortRows puts periods oldest first; sessions and projects by their last
// activity, the newest last; models by cost, the most first.
func sortRows(rows []Row, k Kind) {
	sort.SliceStable(rows, func(i, j int) bool {
		switch k {
		case Sessions, Projects:
			if rows[i].LastActivity != rows[j].LastActivity {
				return rows[i].LastActivity < rows[j].LastActivity
			}
		case Models:
			if rows[i].CostUSD != rows[j].CostUSD {
				return rows[i].CostUSD > rows[j].CostUSD
			}
		}
		return rows[i].Key < rows[j].Key
	})
}
