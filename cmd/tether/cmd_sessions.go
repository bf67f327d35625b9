package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/agent/opencode/opencodesessions"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/searchindex"
)

// sessionsCommand is the sessions group; without a subcommand it lists.
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
	for _, ag := range sessionAgents(claudeDir, codexDir, a.Loc) {
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
func sessionAgents(claudeDir, codexDir string, loc locations.Locations) []agent.Lister {
	oc := opencodesessions.New(loc.OpenCodeDir, loc.OpenCodeDB)
	oc.Limits = &opencode.Limits{ConfigDir: loc.OpenCodeConfigDir, ConfigFile: loc.OpenCodeConfig, CacheDir: loc.OpenCodeCacheDir}
	return []agent.Lister{claudesessions.New(claudeDir), codexsessions.New(codexDir), oc}
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
