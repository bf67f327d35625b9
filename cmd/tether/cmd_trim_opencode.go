package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/agent/opencode/opencodeserve"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/wrap"
)

// openCodeTrim is what trim needs for OpenCode sessions. OpenCode
// rewrites nothing of tether's and compacts its sessions itself, so its
// "trim" is a compaction asked of OpenCode (--compact) or a new session
// of the last turns (--fork-keep N); opencode.db is never written.
type openCodeTrim struct {
	Agent *opencode.Agent
	// Bin is the real opencode ("" when none was found).
	Bin string
	// Catalog lists the OpenCode sessions.
	Catalog func() (*catalog.Catalog, error)
}

// openCodeSession resolves SESSION among the OpenCode sessions when it
// names one (an opencode: key or a ses_ id), or when --compact or
// --fork-keep asks for one.
func (opts trimOptions) openCodeSession() (catalog.Session, bool, error) {
	oc := opts.OpenCode
	arg, keyed := strings.CutPrefix(opts.Session, agent.OpenCode+":")
	if oc == nil || !(keyed || strings.HasPrefix(arg, "ses_") || opts.Compact || opts.ForkKeep > 0) {
		return catalog.Session{}, false, nil
	}
	c, err := oc.Catalog()
	if err != nil {
		return catalog.Session{}, false, err
	}
	s, err := c.Resolve(opts.Ctx, arg)
	if errors.Is(err, catalog.ErrNotFound) && !keyed && !strings.HasPrefix(arg, "ses_") {
		return catalog.Session{}, false, nil // not OpenCode's: the Claude path says what it is
	}
	if err != nil {
		return catalog.Session{}, false, resolveErr(err)
	}
	return s, true, nil
}

func runTrimOpenCode(opts trimOptions, s catalog.Session) error {
	switch {
	case opts.Compact == (opts.ForkKeep > 0):
		return usageErr(fmt.Errorf("session %s is OpenCode's, which compacts its sessions itself: give --compact (ask OpenCode to compact it) or --fork-keep N (a new session of its last N turns)", s.ID))
	case opts.Fit != "" || len(opts.Keep) > 0 || opts.KeepFile != "" || opts.Restore || opts.DryRun || opts.Unknown:
		return usageErr(errors.New("an OpenCode session takes --compact or --fork-keep N only (tether never rewrites OpenCode's database)"))
	}
	oc := opts.OpenCode
	if live := oc.Agent.Live(s.ID, ""); live.Live() && !opts.Force {
		return exitcode.With(exitcode.Refused, fmt.Errorf("session %s is running: %s; stop it first or pass --force", s.ID, live.Reason))
	}
	if oc.Bin == "" {
		return notFound(errors.New("opencode is not on PATH (set TETHER_OPENCODE_BIN to its binary)"))
	}
	if opts.Compact {
		return runOpenCodeCompact(opts, s)
	}
	f, err := oc.Agent.ForkKeep(opts.Ctx, oc.Bin, s.ID, agent.ForkOptions{Turns: opts.ForkKeep})
	if errors.Is(err, opencode.ErrNothingToDrop) {
		return usageErr(err)
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return json.NewEncoder(opts.IO.Out).Encode(map[string]any{"session": s.ID, "fork": f.ID, "directory": f.Dir,
			"turns": f.Turns, "of": f.Of, "summary": f.Summary, "messages": f.Messages, "dropped": f.Dropped})
	}
	kept := fmt.Sprintf("its last %d of %d turns", f.Turns, f.Of)
	if f.Summary {
		kept += " and the compaction summary before them"
	}
	fmt.Fprintf(opts.IO.Out, "forked %s: kept %s (%d messages, %d left out) as a new session %s; %s is unchanged\n",
		s.ID, kept, f.Messages, f.Dropped, f.ID, s.ID)
	fmt.Fprintf(opts.IO.Out, "resume it: cd %s && opencode --session %s\n", shquote.Printable(f.Dir), f.ID)
	return nil
}

// runOpenCodeCompact asks OpenCode to compact the session through its
// HTTP server, and checks in the session's export that a summary came
// of it.
func runOpenCodeCompact(opts trimOptions, s catalog.Session) error {
	oc := opts.OpenCode
	before, err := oc.Agent.Inspect(opts.Ctx, oc.Bin, s.ID)
	if err != nil {
		return err
	}
	resume := fmt.Sprintf("cd %s && opencode --session %s", shquote.Printable(before.Dir), s.ID)
	err = opencodeserve.Compact(opts.Ctx, oc.Bin, opencodeserve.Request{ID: s.ID, Dir: before.Dir, Provider: before.Provider, Model: before.Model})
	if errors.Is(err, opencodeserve.ErrUnavailable) {
		return fmt.Errorf("%w; compact it in OpenCode instead: %s, then type /compact", err, resume)
	}
	if err != nil {
		return err
	}
	after, err := oc.Agent.Inspect(opts.Ctx, oc.Bin, s.ID)
	if err != nil {
		return err
	}
	if after.CompactionFailed || after.LastSummary <= before.LastSummary {
		return fmt.Errorf("session %s: OpenCode's compaction failed (its history is too large to summarise); keep its last turns in a new session instead: tether trim %s --fork-keep 2", s.ID, s.ID)
	}
	if opts.JSON {
		return json.NewEncoder(opts.IO.Out).Encode(map[string]any{"session": s.ID, "directory": after.Dir, "compacted": true,
			"messages": after.Messages, "model": after.Provider + "/" + after.Model})
	}
	fmt.Fprintf(opts.IO.Out, "compacted %s: OpenCode summarised it with %s/%s\n", s.ID, termsafe.String(after.Provider), termsafe.String(after.Model))
	fmt.Fprintf(opts.IO.Out, "resume it: %s\n", resume)
	return nil
}

// openCodeTrim is OpenCode for trim: its agent (for Live and the
// export/import), the real binary, and its sessions.
func (a *App) openCodeTrim() *openCodeTrim {
	oc, _ := a.Agents().Get(agent.OpenCode).(*opencode.Agent)
	if oc == nil {
		return nil
	}
	self, _ := os.Executable()
	bin, _ := wrap.FindBinary("opencode", a.Getenv, self, []string{a.Loc.ShimsDir()})
	return &openCodeTrim{Agent: oc, Bin: bin, Catalog: func() (*catalog.Catalog, error) { return a.catalogIn(agent.OpenCode, "", "") }}
}
