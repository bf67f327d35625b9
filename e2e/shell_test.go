//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
	"github.com/tether-dev/tether/shellinit/compindex"
	"github.com/tether-dev/tether/state"
)

const shellWait = 20 * time.Second

// shellCase is one shell's way of being started with a temporary rc file
// that already has a prompt hook of its own, and of asking it things.
type shellCase struct {
	name string
	// rc writes the rc file (with the user's own hook and a prompt showing
	// [rc=$? user=<the hook's $?> ctx=<segment>]) and returns the argv.
	rc func(t *testing.T, env *harness.Env, initLine string) []string
	// hooks prints "n=<number of tether prompt hooks>".
	hooks string
	// tabs is what to press to list completions.
	tabs []string
}

var shellCases = []shellCase{
	{
		name: "bash",
		rc: func(t *testing.T, env *harness.Env, initLine string) []string {
			rc := filepath.Join(env.Home, ".bashrc")
			write(t, rc, "__user_hook() { __user_rc=$?; }\nPROMPT_COMMAND=__user_hook\n"+
				"_prev_claude() { COMPREPLY=(from-previous); }\ncomplete -F _prev_claude claude\n"+
				"PS1='[rc=$? user=${__user_rc-} ctx=$(__tether_prompt)]\\$ '\n"+initLine+"\n"+initLine+"\n")
			return []string{"bash", "--noprofile", "--rcfile", rc, "-i"}
		},
		hooks: `echo "n=$(printf %s "$PROMPT_COMMAND" | grep -o __tether_prompt_update | wc -l)"`,
		tabs:  []string{"Tab", "Tab"},
	},
	{
		name: "zsh",
		rc: func(t *testing.T, env *harness.Env, initLine string) []string {
			zdot := filepath.Join(env.Home, "zdot")
			write(t, filepath.Join(zdot, ".zshrc"), "autoload -Uz compinit && compinit -u -d $HOME/.zcompdump\n"+
				"setopt prompt_subst\n__user_hook() { __user_rc=$?; }\nprecmd_functions+=(__user_hook)\n"+
				"_prev_claude() { compadd from-previous; }\ncompdef _prev_claude claude\n"+
				"PROMPT='[rc=%? user=${__user_rc-} ctx=${TETHER_PROMPT}]%# '\n"+initLine+"\n"+initLine+"\n")
			env.Setenv("ZDOTDIR", zdot)
			return []string{"zsh", "-i"}
		},
		hooks: `echo "n=$(print -l $precmd_functions | grep -c __tether_prompt_update)"`,
		tabs:  []string{"Tab"},
	},
	{
		name: "fish",
		rc: func(t *testing.T, env *harness.Env, initLine string) []string {
			write(t, filepath.Join(env.Home, ".config", "fish", "config.fish"),
				"function __user_hook --on-event fish_prompt\n    set -g __user_rc $status\nend\n"+
					"complete -c claude -f -a from-previous\n"+
					"function fish_prompt\n    set -l s $status\n    echo -n \"[rc=$s user=$__user_rc ctx=\"\n    tether_prompt\n    echo -n \"]> \"\nend\n"+
					initLine+"\n"+initLine+"\n")
			return []string{"fish", "-i"}
		},
		hooks: `echo n=(math (functions --handlers-type generic | string match -e __tether_prompt_update | count) + (complete -c claude | string match -e __tether | count) - 1)`,
		tabs:  []string{"Tab"},
	},
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeState saves the state of root's latest session through the hooks
// package, as the hook command does, and gives its file the mtime.
func writeState(t *testing.T, stateDir, root string, pct float64, mtime time.Time) {
	t.Helper()
	err := state.Save(stateDir, state.Session{
		SessionID: "3f2a1b4c-0000-4000-8000-000000000001", Harness: "claude-code", IdentityRoot: root,
		Tokens: int64(pct * 2000), Window: 200000, Percent: pct, UsageKnown: true, Updated: mtime,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(state.RootPath(stateDir, root), mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// TestShellIntegration runs each shell interactively under tmux in a
// temporary HOME with the user's own prompt hook, and checks the prompt
// segment follows the session state (asking tether only when something
// changed), $? survives, re-sourcing leaves one hook, TAB offers the right
// session ids in order, and a hostile directory name executes nothing.
func TestShellIntegration(t *testing.T) {
	harness.RequireTmux(t)
	tether := harness.Tether(t)
	for _, sc := range shellCases {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(sc.name); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s not installed", sc.name)
				}
				t.Skipf("%s not installed", sc.name)
			}
			api, err := fakeapi.Start()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(api.Close)
			env := harness.NewEnv(t, api)
			stateDir := filepath.Join(env.Home, ".local", "state", "tether")
			cacheDir := filepath.Join(env.Home, ".cache", "tether")

			// A tether on PATH that counts its prompt runs.
			bin := filepath.Join(env.Home, "bin")
			calls := filepath.Join(env.Home, "prompt-calls")
			write(t, filepath.Join(bin, "tether"), fmt.Sprintf("#!/bin/sh\n[ \"$1\" = prompt ] && echo x >> %s\nexec %s \"$@\"\n", calls, tether))
			os.Chmod(filepath.Join(bin, "tether"), 0o755)
			env.Setenv("PATH", bin+":"+os.Getenv("PATH"))
			countCalls := func() int {
				data, _ := os.ReadFile(calls)
				return strings.Count(string(data), "x")
			}

			initLine := `eval "$(tether init ` + sc.name + ` --cmd tether)"`
			if sc.name == "fish" {
				initLine = "tether init fish --cmd tether | source"
			}
			argv := sc.rc(t, env, initLine)
			project := env.ProjectDir("project")
			root := identity.Resolve(project).Path
			tm := env.StartTmux(project, argv[0], argv[1:]...)
			tm.WaitFor("[rc=0 user=0 ctx=]", shellWait)

			// The segment appears once a session reports.
			writeState(t, stateDir, root, 62, time.Now().Add(-time.Minute))
			tm.SendKeys("Enter")
			tm.WaitFor("ctx=ctx 62%]", shellWait)

			// Nothing changed: the prompt comes from the shell's cache.
			before := countCalls()
			for i := 0; i < 3; i++ {
				tm.SendKeys("Enter")
			}
			time.Sleep(time.Second)
			if n := countCalls(); n != before {
				t.Errorf("tether prompt ran %d times for 3 prompts with nothing changed", n-before)
			}

			// The state changes (same directory): the segment follows.
			writeState(t, stateDir, root, 85, time.Now().Add(-30*time.Second))
			tm.SendKeys("Enter")
			tm.WaitFor("ctx=ctx 85%]", shellWait)

			// $? reaches the user's hook and the prompt.
			tm.SendText("false")
			tm.SendKeys("Enter")
			tm.WaitFor("[rc=1 user=1 ctx=ctx 85%]", shellWait)

			// Sourced twice, registered once.
			tm.SendText(sc.hooks)
			tm.SendKeys("Enter")
			tm.WaitFor("\nn=1", shellWait)

			// A hostile directory name executes nothing.
			hostile := filepath.Join(env.Home, "h $(touch pwned) `touch pwned2` 'q\" ;x\nnl")
			if err := os.MkdirAll(hostile, 0o755); err != nil {
				t.Fatal(err)
			}
			writeState(t, stateDir, identity.Resolve(hostile).Path, 33, time.Now().Add(-time.Minute))
			tm.SendText(`cd "$HOME"/h\ *`)
			tm.SendKeys("Enter")
			tm.WaitFor("ctx=ctx 33%]", shellWait)
			filepath.WalkDir(env.Home, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), "pwned") {
					t.Errorf("a directory name was executed: %s exists", p)
				}
				return nil
			})

			// TAB after claude --resume: Claude ids only, this directory's
			// first (claude cannot resume a Codex thread). The two ids share
			// no prefix, so the first TAB lists them instead of inserting one.
			now := time.Now()
			if err := compindex.Write(compindex.Path(cacheDir), []compindex.Entry{
				{Harness: "codex", ID: "0199c0de-codex-id", LastActivity: now, Root: root, Title: "codex thread"},
				{Harness: "claude-code", ID: "b7e1de01-elsewhere", LastActivity: now, Root: "/home/example/other", Title: "other"},
				{Harness: "claude-code", ID: "c1a0de02-in-hostile", LastActivity: now.Add(-time.Hour), Root: identity.Resolve(hostile).Path, Title: "fix the bug"},
			}); err != nil {
				t.Fatal(err)
			}
			tm.SendText("claude --resume ")
			tm.SendKeys(sc.tabs...)
			screen, ok := tm.WaitUntil(func(s string) bool {
				return strings.Contains(s, "c1a0de02-in-hostile") && strings.Contains(s, "b7e1de01-elsewhere")
			}, shellWait)
			if !ok {
				t.Fatalf("completion did not offer the ids; screen:\n%s", screen)
			}
			last := screen[strings.Index(screen, "claude --resume"):]
			if a, b := strings.Index(last, "c1a0de02"), strings.Index(last, "b7e1de01"); a > b {
				t.Errorf("order: want this directory's Claude id, then the other; screen:\n%s", last)
			}
			if strings.Contains(last, "0199c0de") {
				t.Errorf("claude --resume offered a Codex id; screen:\n%s", last)
			}
			if sc.name != "bash" && !strings.Contains(last, "fix the bug") {
				t.Errorf("%s shows no titles; screen:\n%s", sc.name, last)
			}
			// A unique prefix completes in place.
			tm.SendKeys("C-u")
			tm.SendText("claude --resume c1a0de02")
			tm.SendKeys("Tab")
			tm.WaitFor("claude --resume c1a0de02-in-hostile", shellWait)

			// Elsewhere, the completion claude had before takes over.
			tm.SendKeys("C-u")
			tm.SendText("claude from-p")
			tm.SendKeys("Tab")
			tm.WaitFor("claude from-previous", shellWait)
		})
	}
}

// TestShellCompletionRealSessions: sessions made by the real Claude Code
// and Codex against the fake API reach TAB in an interactive bash: the
// first TAB finds no index, starts the background refresh, and the next
// one offers the Claude session before the Codex one.
func TestShellCompletionRealSessions(t *testing.T) {
	harness.RequireTmux(t)
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	env := harness.NewEnv(t, api)
	env.Setenv("PATH", filepath.Dir(tether)+":"+os.Getenv("PATH"))
	project := env.ProjectDir("project")
	ctx := context.Background()
	r := env.Claude(ctx, clis.Claude, project, "-p", "hello", "--output-format", "stream-json", "--verbose")
	if r.ExitCode != 0 {
		t.Fatalf("claude: exit %d\n%s", r.ExitCode, r.Stderr)
	}
	claudeID := sessionOf(t, r)
	if r := env.Codex(ctx, clis.Codex, project, "exec", "--skip-git-repo-check", "hello"); r.ExitCode != 0 {
		t.Fatalf("codex: exit %d\n%s", r.ExitCode, r.Stderr)
	}
	if len(env.CodexRollouts()) != 1 {
		t.Fatalf("codex rollouts: %v", env.CodexRollouts())
	}
	codexID := strings.TrimSuffix(filepath.Base(env.CodexRollouts()[0]), ".jsonl")
	codexID = codexID[len(codexID)-36:]

	rc := filepath.Join(env.Home, ".bashrc")
	write(t, rc, "PS1='[ready]\\$ '\neval \"$(tether init bash)\"\n")
	tm := env.StartTmux(project, "bash", "--noprofile", "--rcfile", rc, "-i")
	tm.WaitFor("[ready]", shellWait)
	tm.SendText("claude --resume ")
	tm.SendKeys("Tab", "Tab")
	// The background refresh writes the index; TAB again until it is there.
	screen, ok := tm.WaitUntil(func(s string) bool {
		if strings.Contains(s, claudeID) {
			return true
		}
		tm.SendKeys("Tab")
		return false
	}, 60*time.Second)
	if !ok {
		t.Fatalf("TAB did not offer %s; screen:\n%s", claudeID, screen)
	}
	if strings.Contains(screen, codexID) {
		t.Errorf("claude --resume offered the Codex id %s:\n%s", codexID, screen)
	}
}

// TestZshCompletionFreshRC: a .zshrc with nothing but tether's init line
// (no compinit) still completes session ids after claude --resume, and
// doctor, asked in that shell, checks the completion is really registered.
func TestZshCompletionFreshRC(t *testing.T) {
	harness.RequireTmux(t)
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh not installed")
	}
	tether := harness.Tether(t)
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	env := harness.NewEnv(t, api)
	env.Setenv("PATH", filepath.Dir(tether)+":"+os.Getenv("PATH"))
	env.Setenv("SHELL", "zsh")
	zdot := filepath.Join(env.Home, "zdot")
	write(t, filepath.Join(zdot, ".zshrc"), "PROMPT='[ready]%# '\neval \"$(tether init zsh)\"\n")
	env.Setenv("ZDOTDIR", zdot)
	project := env.ProjectDir("project")
	cacheDir := filepath.Join(env.Home, ".cache", "tether")
	now := time.Now()
	if err := compindex.Write(compindex.Path(cacheDir), []compindex.Entry{
		{Harness: "claude-code", ID: "c1a0de01-fresh-zshrc", LastActivity: now, Root: "/home/example/other", Title: "other"},
		{Harness: "claude-code", ID: "c1a0de02-fresh-zshrc", LastActivity: now, Root: "/home/example/other", Title: "another"},
	}); err != nil {
		t.Fatal(err)
	}
	tm := env.StartTmux(project, "zsh", "-i")
	tm.WaitFor("[ready]", shellWait)
	tm.SendKeys("Enter")
	tm.SendText("claude --resume c1a0")
	tm.SendKeys("Tab")
	screen, ok := tm.WaitUntil(func(s string) bool {
		return strings.Contains(s, "c1a0de01-fresh-zshrc") || strings.Contains(s, "claude --resume c1a0de0")
	}, shellWait)
	if !ok {
		t.Fatalf("TAB after claude --resume did not complete a session id; screen:\n%s", screen)
	}
	tm.SendKeys("C-u")
	tm.SendText("tether doctor 2>&1 | grep -i 'completion'")
	tm.SendKeys("Enter")
	screen, ok = tm.WaitUntil(func(s string) bool { return strings.Contains(s, "runs tether's completion") }, shellWait)
	if !ok {
		t.Errorf("doctor does not report the registered zsh completion; screen:\n%s", screen)
	}
}
