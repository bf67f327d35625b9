package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/table"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
)

type logOptions struct {
	IO      *iostreams.IOStreams
	Path    string
	Session string
	Event   string
	Since   time.Duration
	JSON    bool
	Follow  bool
	Now     func() time.Time
	// Poll is how often --follow looks for new records.
	Poll time.Duration
	// Short abbreviates a session id (nil: identity.ShortID).
	Short func(id string) string
}

func (a *App) logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "read the lifecycle log (spawns, resumes, failures, context usage)",
		Description: "Prints the events tether recorded in $XDG_STATE_HOME/tether/events.jsonl, oldest\n" +
			"first. The log holds metadata only: ids, paths, counts, sizes and errors.\n\n" +
			"--follow starts from the last 10 matching events, like tail -f (with --since, from\n" +
			"every event in that period), then prints new ones as they arrive, in the same columns.\n\n" +
			"Examples:\n" +
			"  tether log --since 1h\n" +
			"  tether log -f --event resume_failure\n" +
			"  tether log --session 3f2a1b4c --json | jq .",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "only events of this session (full id, prefix, or same body)"},
			&cli.StringFlag{Name: "event", Usage: "only events with this name"},
			&cli.StringFlag{Name: "since", Usage: "only events newer than this `DURATION` (e.g. 90m, 24h, 7d)"},
			&cli.BoolFlag{Name: "json", Usage: "print the raw JSON lines"},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new events as they arrive"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usageErr(fmt.Errorf("log takes no arguments, got %q", cmd.Args().First()))
			}
			opts := logOptions{
				IO: a.IO, Path: state.EventLogPath(a.Loc.StateDir), Session: cmd.String("session"), Event: cmd.String("event"),
				JSON: cmd.Bool("json"), Follow: cmd.Bool("follow"), Now: a.Now, Poll: 250 * time.Millisecond,
				Short: a.knownIDs(),
			}
			if s := cmd.String("since"); s != "" {
				d, err := parseDuration(s)
				if err != nil {
					return usageErr(fmt.Errorf("--since: %w", err))
				}
				opts.Since = d
			}
			return runLog(ctx, opts)
		},
	}
}

func runLog(ctx context.Context, opts logOptions) error {
	var cutoff time.Time
	if opts.Since > 0 {
		cutoff = opts.Now().Add(-opts.Since)
	}
	match := func(r eventlog.Record) bool {
		if opts.Event != "" && r.Event != opts.Event {
			return false
		}
		if opts.Session != "" && !strings.HasPrefix(r.SessionID, opts.Session) && !identity.SameSession(r.SessionID, opts.Session) {
			return false
		}
		return cutoff.IsZero() || !r.Time.Before(cutoff)
	}
	p := newLogPrinter(opts)
	// Like tail -f, --follow starts from the last records, unless --since
	// asked for a period.
	tail := opts.Follow && opts.Since == 0
	var last []eventlog.Record
	follower, err := eventlog.ReadAll(opts.Path, func(r eventlog.Record) {
		switch {
		case !match(r):
		case tail:
			if len(last) == followTail {
				last = append(last[:0], last[1:]...)
			}
			last = append(last, r)
		default:
			p.print(r)
		}
	})
	if err != nil {
		return fmt.Errorf("read log: %w", err)
	}
	for _, r := range last {
		p.print(r)
	}
	p.flush()
	if !opts.Follow {
		if !p.any && !opts.JSON {
			fmt.Fprintf(opts.IO.ErrOut, "tether: no matching events in %s\n", opts.Path)
		}
		return nil
	}
	t := time.NewTicker(opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := follower.Poll(func(r eventlog.Record) {
			if match(r) {
				p.print(r)
			}
		}); err != nil {
			return fmt.Errorf("follow log: %w", err)
		}
		p.flush()
	}
}

// followTail is how many records --follow shows before the new ones.
const followTail = 10

// followWidths reserve room in a followed log for the records still to
// come: time, level, the longest event names, a short id, claude-code.
var followWidths = []int{19, 5, 24, 8, 11}

type logPrinter struct {
	opts logOptions
	tb   *table.Table
	rows [][]string
	any  bool
}

func newLogPrinter(opts logOptions) *logPrinter {
	tb := &table.Table{Header: []string{"TIME", "LEVEL", "EVENT", "SESSION", "HARNESS", "DETAILS"}}
	if opts.Follow {
		tb.MinWidths = followWidths
	}
	return &logPrinter{opts: opts, tb: tb}
}

func (p *logPrinter) print(r eventlog.Record) {
	p.any = true
	if p.opts.JSON {
		p.opts.IO.Out.Write(append(r.Raw, '\n'))
		return
	}
	p.rows = append(p.rows, []string{r.Time.Local().Format("2006-01-02 15:04:05"),
		termsafe.String(r.Level), termsafe.String(r.Event), termsafe.String(p.short(r.SessionID)), termsafe.String(dash(r.Harness)), details(r)})
}

func (p *logPrinter) short(id string) string {
	if p.opts.Short == nil || id == "" {
		return shortID(id)
	}
	return p.opts.Short(id)
}

func (p *logPrinter) flush() {
	if p.opts.JSON || len(p.rows) == 0 {
		return
	}
	p.tb.Write(p.opts.IO.Out, p.rows)
	p.rows = p.rows[:0]
}

func details(r eventlog.Record) string {
	var b strings.Builder
	r.Fields(func(k string, v gjson.Result) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(termsafe.String(k))
		b.WriteByte('=')
		val := v.String()
		if v.Type == gjson.JSON {
			val = v.Raw
		}
		// Quoting escapes every control and bidi mark (strconv.Quote
		// escapes what is not printable); termsafe catches the rest.
		if strings.ContainsAny(val, " \t\n\"") || val == "" || !termsafe.Safe(val) {
			val = termsafe.String(strconv.Quote(val))
		}
		b.WriteString(val)
	})
	return b.String()
}

func shortID(id string) string { return dash(identity.ShortID(id)) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
