package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/summarize"
)

type sessionsShowOptions struct {
	sessionsBase
	Marks     map[string]state.StaleMark
	DataDir   string
	ID        string
	JSON      bool
	NoContent bool
	// Spends gives the sessions' spends by transcript (nil: not shown).
	Spends func(context.Context, []catalog.Session) map[string]*agent.Spend
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
			return runSessionsShow(ctx, sessionsShowOptions{sessionsBase: b, Marks: a.staleMarks(), DataDir: a.Loc.DataDir, ID: id, JSON: cmd.Bool("json"), NoContent: cmd.Bool("no-content"), Spends: a.sessionSpends})
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
	if opts.Spends != nil {
		full.Spend = opts.Spends(ctx, one)[spendKey(full.Harness, full.Source, full.ID)]
	}
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
		counts := fmt.Sprintf("%d %s, %d %s, %d %s", c.HumanPrompts, plural(c.HumanPrompts, "prompt", "prompts"),
			c.Messages, plural(c.Messages, "message", "messages"), c.ToolCalls, plural(c.ToolCalls, "tool call", "tool calls"))
		if c.Compactions > 0 {
			counts += fmt.Sprintf(", %d %s", c.Compactions, plural(c.Compactions, "compaction", "compactions"))
		}
		row("counts", counts)
	}
	if s.Context != nil {
		row("context", s.Context.Text())
	}
	if s.Spend != nil {
		row("spend", spendText(s.Spend))
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
