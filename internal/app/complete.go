package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/agent"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/shellinit"
)

// Harness names as the catalog and the completion index spell them.
const (
	harnessClaude = agent.Claude
	harnessCodex  = agent.Codex
)

// indexMaxAge is how old the completion index may be before a TAB starts a
// background refresh (it still answers from the old one).
const indexMaxAge = 30 * time.Second

// refreshLockMaxAge is how long a refresh may hold its lock before another
// TAB assumes it died and starts a new one.
const refreshLockMaxAge = 2 * time.Minute

// completeLimit caps the session ids offered at once.
const completeLimit = 500

// sessionArgCommands take a session id as their first argument, and
// sessionFlags take one as their value.
var (
	sessionArgCommands = map[string]bool{"sessions show": true, "sessions resume": true, "trim": true}
	sessionFlags       = map[string]bool{"session": true}
)

type completeOptions struct {
	Out   io.Writer
	Shell string
	Words []string
	// Tree is tether's own command tree, so its completion never drifts
	// from the commands.
	Tree      *cli.Command
	IndexPath string
	Root      string
	Now       time.Time
	// Refresh starts a background rebuild of the index.
	Refresh func()
}

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
			if cmd.Bool("refresh-index") {
				return a.refreshCompletionIndex(ctx)
			}
			shell := cmd.String("shell")
			if shell != "bash" && shell != "zsh" && shell != "fish" {
				return usageErr(fmt.Errorf("--shell: %q is not one of bash, zsh, fish", shell))
			}
			words := cmd.Args().Slice()
			if cmd.IsSet("line") {
				words = splitLine(cmd.String("line"))
			}
			return runComplete(completeOptions{
				Out: a.IO.Out, Shell: shell, Words: words, Tree: a.Command(),
				IndexPath: shellinit.IndexPath(a.Loc.CacheDir), Root: a.Root().Path, Now: a.Now(),
				Refresh: a.spawnIndexRefresh,
			})
		},
	}
}

// noOpinion makes the shell fall back to its own completion.
var noOpinion = exitcode.Silent{Code: 1}

func runComplete(opts completeOptions) error {
	if len(opts.Words) == 0 {
		return noOpinion
	}
	cur := opts.Words[len(opts.Words)-1]
	before := opts.Words[:len(opts.Words)-1]
	prev := ""
	if len(before) > 0 {
		prev = before[len(before)-1]
	}
	var (
		cands     []shellinit.Candidate
		harnesses []string
		valuePfx  string
	)
	switch filepath.Base(opts.Words[0]) {
	case "claude":
		// claude resumes only its own sessions.
		harnesses = []string{harnessClaude}
		switch {
		case prev == "-r" || prev == "--resume":
		case strings.HasPrefix(cur, "--resume="):
			valuePfx, cur = "--resume=", strings.TrimPrefix(cur, "--resume=")
		default:
			return noOpinion
		}
	case "codex":
		if prev != "resume" {
			return noOpinion
		}
		harnesses = []string{harnessCodex}
	default:
		var ok bool
		cands, harnesses, valuePfx, ok = completeTether(opts.Tree, before, cur)
		if !ok {
			return noOpinion
		}
		if valuePfx != "" {
			cur = strings.TrimPrefix(cur, valuePfx)
		}
	}
	if harnesses != nil {
		cands = append(cands, opts.sessionCandidates(harnesses, cur)...)
	}
	if valuePfx != "" && opts.Shell == "fish" {
		// fish completes the whole token; bash and zsh the part after '='.
		for i := range cands {
			cands[i].Value = valuePfx + cands[i].Value
		}
	}
	return shellinit.FormatCandidates(opts.Out, opts.Shell, cands)
}

func (opts completeOptions) sessionCandidates(harnesses []string, prefix string) []shellinit.Candidate {
	st, statErr := os.Stat(opts.IndexPath)
	if (statErr != nil || opts.Now.Sub(st.ModTime()) > indexMaxAge) && opts.Refresh != nil {
		opts.Refresh()
	}
	if statErr != nil {
		return nil
	}
	entries, err := shellinit.ReadIndex(opts.IndexPath)
	if err != nil {
		return nil
	}
	return shellinit.SessionCandidates(entries, shellinit.SessionQuery{
		Harnesses: harnesses, Root: opts.Root, Prefix: prefix, Now: opts.Now, Limit: completeLimit,
	})
}

// completeTether completes tether's own command line: subcommands, flags,
// and session ids where a command or flag takes one. ok is false where it
// has nothing to offer (a file argument, a flag's free-form value).
func completeTether(root *cli.Command, before []string, cur string) (cands []shellinit.Candidate, harnesses []string, valuePfx string, ok bool) {
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
	all := []string{harnessClaude, harnessCodex}
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
					cands = append(cands, shellinit.Candidate{Value: spelled, Desc: flagUsage(f)})
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
			cands = append(cands, shellinit.Candidate{Value: sub.Name, Desc: sub.Usage})
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
func choiceCandidates(vals []string, cur string) []shellinit.Candidate {
	var out []shellinit.Candidate
	for _, v := range vals {
		if strings.HasPrefix(v, cur) {
			out = append(out, shellinit.Candidate{Value: v})
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

// splitLine splits a command line as the shell would for completion: on
// blanks outside quotes, with quotes removed. A line ending in a blank has
// an empty last word (the one being completed).
func splitLine(line string) []string {
	var (
		words []string
		cur   strings.Builder
		quote rune
		in    bool
		esc   bool
	)
	for _, r := range line {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, in = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	return append(words, cur.String())
}

// spawnIndexRefresh starts `tether complete --refresh-index` in its own
// session with no terminal, and does not wait for it. A lock file keeps
// TABs pressed while it runs from starting more.
func (a *App) spawnIndexRefresh() {
	lock := shellinit.IndexPath(a.Loc.CacheDir) + ".lock"
	if st, err := os.Stat(lock); err == nil && a.Now().Sub(st.ModTime()) < refreshLockMaxAge {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	c := exec.Command(self, "complete", "--refresh-index")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if c.Start() == nil {
		c.Process.Release()
	}
}

// refreshCompletionIndex rebuilds the completion index, unless another
// refresh holds the lock.
func (a *App) refreshCompletionIndex(ctx context.Context) error {
	path := shellinit.IndexPath(a.Loc.CacheDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		st, statErr := os.Stat(lock)
		if statErr == nil && a.Now().Sub(st.ModTime()) < refreshLockMaxAge {
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
	return shellinit.WriteIndex(path, entries)
}
