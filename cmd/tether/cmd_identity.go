package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tether-dev/tether/agent/claude"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/termsafe"
)

type identityOptions struct {
	IO        *iostreams.IOStreams
	Path      string        // "" means this process's pinned root
	Pinned    identity.Root // used when Path is ""
	ClaudeDir string
	JSON      bool
}

func (a *App) identityCommand() *cli.Command {
	return &cli.Command{
		Name:      "identity",
		Usage:     "show the identity root of a directory and where its sessions live",
		ArgsUsage: "[PATH]",
		Description: "Resolves PATH (default: the current directory, or $TETHER_IDENTITY_ROOT when a\n" +
			"wrapper pinned one) to its canonical identity root: cleaned, symlinks resolved,\n" +
			"Unicode NFC. Shows the Claude Code project directory for that root and any other\n" +
			"project directories holding sessions recorded for the same directory (stranded\n" +
			"by a symlink, a trailing slash or an older CLI's encoding).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 1 {
				return usageErr(fmt.Errorf("identity takes at most one PATH, got %d", cmd.NArg()))
			}
			opts := identityOptions{IO: a.IO, Path: cmd.Args().First(), ClaudeDir: a.Loc.ClaudeDir, JSON: cmd.Bool("json")}
			if opts.Path == "" {
				opts.Pinned = a.Root()
			}
			if _, err := a.Config(); err != nil {
				return err
			}
			return runIdentity(opts)
		},
	}
}

type identityReport struct {
	identity.Root
	ClaudeConfigDir  string            `json:"claudeConfigDir"`
	ProjectDir       projectDirReport  `json:"projectDir"`
	OtherProjectDirs []otherProjectDir `json:"otherProjectDirs"`
}

type projectDirReport struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Long is set when the name is cut to 200 characters plus a hash,
	// which differs between CLI builds.
	Long     bool `json:"long"`
	Exists   bool `json:"exists"`
	Sessions int  `json:"sessions"`
}

type otherProjectDir struct {
	Name     string   `json:"name"`
	Path     string   `json:"path"`
	Match    string   `json:"match"`
	Sessions int      `json:"sessions"`
	Cwds     []string `json:"cwds"`
}

func runIdentity(opts identityOptions) error {
	root := opts.Pinned
	if opts.Path != "" {
		root = identity.Resolve(opts.Path)
	}
	projects := opts.ClaudeDir + "/projects"
	dirs, err := claude.FindProjectDirs(projects, root)
	if err != nil {
		return fmt.Errorf("read %s: %w", projects, err)
	}
	name, long := claude.ProjectDirName(root.Path)
	rep := identityReport{Root: root, ClaudeConfigDir: opts.ClaudeDir, OtherProjectDirs: []otherProjectDir{}}
	rep.ProjectDir = projectDirReport{Name: name, Long: long}
	for _, d := range dirs {
		if d.Match == claude.MatchExact && rep.ProjectDir.Path == "" {
			rep.ProjectDir.Name, rep.ProjectDir.Path, rep.ProjectDir.Sessions = d.Name, d.Path, len(d.Sessions)
			_, statErr := os.Stat(d.Path)
			rep.ProjectDir.Exists = statErr == nil
			continue
		}
		cwds := d.Cwds
		if cwds == nil {
			cwds = []string{}
		}
		rep.OtherProjectDirs = append(rep.OtherProjectDirs, otherProjectDir{
			Name: d.Name, Path: d.Path, Match: d.Match, Sessions: len(d.Sessions), Cwds: cwds,
		})
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	printIdentity(opts.IO, rep)
	return nil
}

func printIdentity(io *iostreams.IOStreams, r identityReport) {
	w := io.Out
	// Paths are hostile: a directory name may hold terminal controls.
	q := termsafe.String
	fmt.Fprintf(w, "raw path:     %s\n", q(r.Raw))
	fmt.Fprintf(w, "root:         %s\n", q(r.Path))
	if r.Dir != r.Path {
		fmt.Fprintf(w, "on disk:      %s\n", q(r.Dir))
	}
	switch {
	case r.Pinned:
		fmt.Fprintf(w, "resolution:   pinned by $%s\n", identity.EnvRoot)
	case r.FellBack:
		fmt.Fprintf(w, "resolution:   fell back to the cleaned path (%s)\n", q(r.Reason))
	default:
		fmt.Fprintf(w, "resolution:   resolved\n")
	}
	if r.IgnoredPin != "" {
		fmt.Fprintf(w, "ignored:      %s\n", q(r.IgnoredPin))
	}
	pd := r.ProjectDir
	state := "does not exist yet"
	if pd.Exists {
		state = fmt.Sprintf("exists, %d %s", pd.Sessions, plural(pd.Sessions, "session", "sessions"))
	}
	note := ""
	if pd.Long {
		note = " (long: other CLI builds use another hash or the uncut name)"
	}
	fmt.Fprintf(w, "claude dir:   %s (%s)%s\n", q(pd.Name), state, note)
	fmt.Fprintf(w, "              under %s/projects\n", q(r.ClaudeConfigDir))
	if len(r.OtherProjectDirs) == 0 {
		fmt.Fprintf(w, "stranded:     none\n")
		return
	}
	fmt.Fprintf(w, "stranded:     %d other project %s hold sessions for this directory\n",
		len(r.OtherProjectDirs), plural(len(r.OtherProjectDirs), "directory", "directories"))
	for _, d := range r.OtherProjectDirs {
		fmt.Fprintf(w, "  %s  %d %s  (%s", q(d.Name), d.Sessions, plural(d.Sessions, "session", "sessions"), d.Match)
		for _, c := range d.Cwds {
			fmt.Fprintf(w, "; cwd %s", q(c))
		}
		fmt.Fprintln(w, ")")
	}
}
