package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/shellinit/compindex"
)

// sessionArgCommands take a session id as their first argument, and
// sessionFlags take one as their value.
var (
	sessionArgCommands = map[string]bool{"sessions show": true, "sessions resume": true, "trim": true}
	sessionFlags       = map[string]bool{"session": true}
)

func (a *App) completeCommand() *cli.Command {
	return &cli.Command{
		Name:   "complete",
		Usage:  "completion candidates for the scripts of 'tether init' (internal)",
		Hidden: true,
		Description: "Prints the candidates for the last of WORDS (the command line up to the cursor)\n" +
			"from tether's command tree and the session index in the cache, in the format the\n" +
			"shell's completion function reads. Exits 1, printing nothing, when it has nothing to\n" +
			"say about the position, so the shell's own completion takes over.\n\n" +
			"The index is rebuilt in the background when it is missing or older than 30s;\n" +
			"--refresh-index rebuilds it now.",
		ArgsUsage: "-- WORDS...",
		Flags: []cli.Flag{
			choice(&cli.StringFlag{Name: "shell", Value: "bash", Usage: "bash, zsh or fish"}, "bash", "zsh", "fish"),
			&cli.StringFlag{Name: "line", Usage: "the command line up to the cursor, split here instead of WORDS (bash)"},
			&cli.BoolFlag{Name: "refresh-index", Usage: "rebuild the session index and exit"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := a.refuseUnsafe(); err != nil {
				if cmd.Bool("refresh-index") {
					return err
				}
				// A TAB fails open: the shell's own completion.
				return hot.NoOpinion
			}
			if cmd.Bool("refresh-index") {
				return a.refreshCompletionIndex(ctx)
			}
			shell := cmd.String("shell")
			if shell != "bash" && shell != "zsh" && shell != "fish" {
				return usageErr(fmt.Errorf("--shell: %q is not one of bash, zsh, fish", shell))
			}
			words := cmd.Args().Slice()
			if cmd.IsSet("line") {
				words = hot.SplitLine(cmd.String("line"))
			}
			return runComplete(a.Command(), hot.CompleteOptions{
				Out: a.IO.Out, Shell: shell, Words: words,
				IndexPath: compindex.Path(a.Loc.CacheDir), Root: a.Root().Path, Now: a.Now(),
				Refresh: a.spawnIndexRefresh,
			})
		},
	}
}

// runComplete completes claude's and codex's session ids as tether-hot
// does, and tether's own command line from its command tree (tree, so
// its completion never drifts from the commands).
func runComplete(tree *cli.Command, opts hot.CompleteOptions) error {
	if handled, err := hot.CompleteAgent(opts); handled {
		return err
	}
	cur := opts.Words[len(opts.Words)-1]
	cands, harnesses, valuePfx, ok := completeTether(tree, opts.Words[:len(opts.Words)-1], cur)
	if !ok {
		return hot.NoOpinion
	}
	return hot.FinishComplete(opts, cands, harnesses, strings.TrimPrefix(cur, valuePfx), valuePfx)
}

// completeTether completes tether's own command line: subcommands, flags,
// and session ids where a command or flag takes one. ok is false where it
// has nothing to offer (a file argument, a flag's free-form value).
func completeTether(root *cli.Command, before []string, cur string) (cands []compindex.Candidate, harnesses []string, valuePfx string, ok bool) {
	cmd, path := root, ""
	positional := 0
	var pending cli.Flag
	for _, w := range before[min(1, len(before)):] {
		if pending != nil {
			pending = nil
			continue
		}
		if w == "--" {
			positional++
			continue
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := findFlag(cmd, name); f != nil && takesValue(f) && !hasValue {
				pending = f
			}
			continue
		}
		if positional == 0 {
			if sub := findCommand(cmd, w); sub != nil {
				cmd = sub
				path = strings.TrimSpace(path + " " + sub.Name)
				continue
			}
		}
		positional++
	}
	all := []string{hot.HarnessClaude, hot.HarnessCodex}
	if pending != nil {
		if isSessionFlag(pending) {
			return nil, all, "", true
		}
		if vals := choicesOf(pending); vals != nil {
			return choiceCandidates(vals, cur), nil, "", true
		}
		return nil, nil, "", false
	}
	if strings.HasPrefix(cur, "-") {
		if name, value, hasValue := strings.Cut(strings.TrimLeft(cur, "-"), "="); hasValue {
			pfx := cur[:strings.Index(cur, "=")+1]
			f := findFlag(cmd, name)
			switch {
			case f != nil && isSessionFlag(f):
				return nil, all, pfx, true
			case f != nil && choicesOf(f) != nil:
				return choiceCandidates(choicesOf(f), value), nil, pfx, true
			}
			return nil, nil, "", false
		}
		for _, f := range append(slices.Clone(cmd.Flags), helpFlags(cmd, root)...) {
			if h, isHidden := f.(interface{ IsVisible() bool }); isHidden && !h.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				spelled := "--" + n
				if len(n) == 1 {
					spelled = "-" + n
				}
				if strings.HasPrefix(spelled, cur) {
					cands = append(cands, compindex.Candidate{Value: spelled, Desc: flagUsage(f)})
				}
			}
		}
		return cands, nil, "", true
	}
	if positional == 0 {
		for _, sub := range cmd.Commands {
			if sub.Hidden || !strings.HasPrefix(sub.Name, cur) {
				continue
			}
			cands = append(cands, compindex.Candidate{Value: sub.Name, Desc: sub.Usage})
		}
		if sessionArgCommands[path] {
			return cands, all, "", true
		}
		if len(cmd.Commands) > 0 {
			return cands, nil, "", true
		}
	}
	return nil, nil, "", false
}

// choiceCandidates are the values of a choice flag that start with cur.
func choiceCandidates(vals []string, cur string) []compindex.Candidate {
	var out []compindex.Candidate
	for _, v := range vals {
		if strings.HasPrefix(v, cur) {
			out = append(out, compindex.Candidate{Value: v})
		}
	}
	return out
}

func findCommand(cmd *cli.Command, name string) *cli.Command {
	for _, sub := range cmd.Commands {
		if sub.Name == name || slices.Contains(sub.Aliases, name) {
			return sub
		}
	}
	return nil
}

func findFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func flagUsage(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.GetUsage()
	}
	return ""
}

func isSessionFlag(f cli.Flag) bool {
	for _, n := range f.Names() {
		if sessionFlags[n] {
			return true
		}
	}
	return false
}

// helpFlags are the flags urfave/cli adds when it runs, which the tree
// built for completion does not hold yet.
func helpFlags(cmd, root *cli.Command) []cli.Flag {
	out := []cli.Flag{&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help"}}
	if cmd == root && root.Version != "" {
		out = append(out, &cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version"})
	}
	return out
}

// spawnIndexRefresh starts a background `tether complete --refresh-index`.
func (a *App) spawnIndexRefresh() {
	if self, err := os.Executable(); err == nil {
		hot.SpawnIndexRefresh(a.Loc.CacheDir, a.Now(), self)
	}
}

// refreshCompletionIndex rebuilds the completion index, unless another
// refresh holds the lock.
func (a *App) refreshCompletionIndex(ctx context.Context) error {
	path := compindex.Path(a.Loc.CacheDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		st, statErr := os.Stat(lock)
		if statErr == nil && a.Now().Sub(st.ModTime()) < hot.RefreshLockMaxAge {
			return nil
		}
		os.Remove(lock)
		f, err = os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	}
	if err != nil {
		return fmt.Errorf("completion index lock: %w", err)
	}
	f.Close()
	defer os.Remove(lock)
	list := a.indexSource
	if list == nil {
		list = a.catalogIndexEntries
	}
	entries, err := list(ctx)
	if err != nil {
		return err
	}
	return writeIndex(path, entries)
}
