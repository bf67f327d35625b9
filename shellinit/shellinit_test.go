package shellinit

import (
	"bytes"
	"fmt"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var hostile = []string{
	"plain",
	"",
	"with space",
	"it's",
	`"double"`,
	"$(touch pwned)",
	"`touch pwned`",
	"$HOME ${HOME} $((1+1))",
	"new\nline",
	"*?[a-z]",
	`back\slash\'`,
	"~user",
	"a;b&c|d>e<f",
	"{a,b}",
	"-n",
	"trailing\\",
	"ünïcödé ☃",
	"\t tab",
	"%F{red}% %%",
}

func need(t *testing.T, prog string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Skipf("%s not installed", prog)
	}
	return p
}

// TestQuoteRoundTrips hands each quoted value to the real shell and checks
// it comes back byte for byte, and that nothing in it ran.
func TestQuoteRoundTrips(t *testing.T) {
	cases := []struct {
		sh   Shell
		prog string
		cmd  func(q string) []string
	}{
		{Bash{}, "bash", func(q string) []string { return []string{"--norc", "--noprofile", "-c", "printf %s " + q} }},
		{Zsh{}, "zsh", func(q string) []string { return []string{"-f", "-c", "printf %s " + q} }},
		{Fish{}, "fish", func(q string) []string { return []string{"--no-config", "-c", "printf %s " + q} }},
	}
	for _, c := range cases {
		t.Run(c.sh.Name(), func(t *testing.T) {
			bin := need(t, c.prog)
			dir := t.TempDir()
			for _, v := range hostile {
				q := c.sh.Quote(v)
				cmd := exec.Command(bin, c.cmd(q)...)
				cmd.Dir = dir
				cmd.Env = testutil.IsolatedEnv(dir)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Errorf("%q quoted as %s: %v: %s", v, q, err, out)
					continue
				}
				if string(out) != v {
					t.Errorf("%q quoted as %s came back as %q", v, q, out)
				}
			}
			noPwned(t, dir)
		})
	}
}

func allOptions(bin string) []Options {
	var out []Options
	for i := 0; i < 8; i++ {
		out = append(out, Options{Bin: bin, Wrap: i&1 != 0, Prompt: i&2 != 0, Completion: i&4 != 0})
	}
	// The picker key, with everything and alone (alt keys spell differently).
	out = append(out, Options{Bin: bin, Wrap: true, Prompt: true, Completion: true, Bind: "ctrl-g"}, Options{Bin: bin, Bind: "alt-p"})
	return out
}

func (o Options) String() string {
	return fmt.Sprintf("wrap=%v,prompt=%v,completion=%v,bind=%s", o.Wrap, o.Prompt, o.Completion, o.Bind)
}

// TestRenderEveryCombination checks every shell and option combination,
// with a hostile tether path: the syntax checkers of the real shells and
// shellcheck accept it, and evaluating it in a non-interactive shell (bash
// with set -euo pipefail) prints nothing and fails nothing.
func TestRenderEveryCombination(t *testing.T) {
	bins := []string{"/usr/local/bin/tether", "/tmp/odd dir/$(touch pwned)/it's `x`/\n/tether"}
	for _, name := range Names() {
		sh, _ := ByName(name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			prog := need(t, name)
			for _, bin := range bins {
				for _, o := range allOptions(bin) {
					script, err := Render(sh, o)
					if err != nil {
						t.Fatalf("%v: %v", o, err)
					}
					checkScript(t, name, prog, o, script)
				}
			}
		})
	}
}

func checkScript(t *testing.T, name, prog string, o Options, script string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "init."+name)
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(script, "#{{") {
		t.Errorf("%s %v: a template directive was left in the output", name, o)
	}
	run := func(what string, args ...string) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || out.Len() != 0 {
			t.Errorf("%s %v: %s: err %v, output %q\n%s", name, o, what, err, out.String(), script)
		}
	}
	switch name {
	case "bash":
		run("bash -n", prog, "-n", path)
		if sc, err := exec.LookPath("shellcheck"); err == nil {
			run("shellcheck", sc, "-s", "bash", path)
		}
		run("eval under set -euo pipefail", prog, "--norc", "--noprofile", "-c", `set -euo pipefail; eval "$(cat "$1")"`, "x", path)
	case "zsh":
		run("zsh -n", prog, "-n", path)
		run("eval under set -euo pipefail", prog, "-f", "-c", `set -euo pipefail; eval "$(<$1)"`, "x", path)
	case "fish":
		run("fish --no-execute", prog, "--no-execute", path)
		run("source", prog, "--no-config", "-c", "source $argv[1]", path)
	}
	noPwned(t, dir)
}

// noPwned fails when a hostile value ran `touch pwned` anywhere under dir.
func noPwned(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "pwned" {
			t.Errorf("a quoted value was executed: %s exists", p)
		}
		return nil
	})
}

func TestRenderEndsWithEvalLine(t *testing.T) {
	for name, want := range map[string]string{
		"bash": `#   eval "$(tether init bash --no-prompt)"`,
		"zsh":  `#   eval "$(tether init zsh --no-prompt)"`,
		"fish": `#   tether init fish --no-prompt | source`,
	} {
		sh, _ := ByName(name)
		s, err := Render(sh, Options{Bin: "/x/tether", Wrap: true, Completion: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(s, want+"\n") {
			t.Errorf("%s: script does not end with %q:\n%s", name, want, s[max(0, len(s)-200):])
		}
	}
}

func TestRenderRefusesNUL(t *testing.T) {
	if _, err := Render(Bash{}, Options{Bin: "/x\x00y"}); err == nil {
		t.Error("a NUL byte in the path was accepted")
	}
	if _, err := ByName("tcsh"); err == nil {
		t.Error("tcsh accepted")
	}
}

// TestWrapperArgsAndStatus: the wrappers (claude, codex, opencode)
// preserve arguments and exit status, and --no-wrap defines none of them.
func TestWrapperArgsAndStatus(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "tether")
	// A fake tether that prints its arguments one per line and exits 7.
	os.WriteFile(fake, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\nexit 7\n"), 0o755)
	args := []string{"-r", "a b", "", "$(touch pwned)", "*", "it's"}
	for _, name := range Names() {
		prog := need(t, name)
		sh, _ := ByName(name)
		for _, agent := range []string{"claude", "codex", "opencode"} {
			want := "<run>\n<" + agent + ">\n<-r>\n<a b>\n<>\n<$(touch pwned)>\n<*>\n<it's>\nstatus=7\n"
			script, _ := Render(sh, Options{Bin: fake, Wrap: true})
			var cmd *exec.Cmd
			switch name {
			case "fish":
				cmd = exec.Command(prog, "--no-config", "-c", script+"\n"+agent+" $argv; echo status=$status", "--")
			default:
				cmd = exec.Command(prog, "-c", script+"\n"+agent+" \"$@\"; echo status=$?", "x")
			}
			cmd.Args = append(cmd.Args, args...)
			cmd.Dir = dir
			cmd.Env = testutil.IsolatedEnv(dir)
			out, _ := cmd.CombinedOutput()
			if string(out) != want {
				t.Errorf("%s %s: got\n%s\nwant\n%s", name, agent, out, want)
			}
			script, _ = Render(sh, Options{Bin: fake})
			if strings.Contains(script, "function "+agent) {
				t.Errorf("%s: --no-wrap still defines %s", name, agent)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("an argument was executed")
	}
}

// TestBashPromptCommandForms: the hook is prepended once to PROMPT_COMMAND
// whether it is a string or an array, and keeps $? for what follows.
func TestBashPromptCommandForms(t *testing.T) {
	prog := need(t, "bash")
	dir := t.TempDir()
	fake := filepath.Join(dir, "tether")
	os.WriteFile(fake, []byte("#!/bin/sh\nprintf 'ctx 9%%\\n/nonexistent/state\\n/nonexistent/stamp\\n'\n"), 0o755)
	script, err := Render(Bash{}, Options{Bin: fake, Prompt: true})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "init.bash"), []byte(script), 0o600)
	for setup, want := range map[string]string{
		`PROMPT_COMMAND='user_a; user_b'`: `declare -- PROMPT_COMMAND="__tether_prompt_update;user_a; user_b"`,
		`PROMPT_COMMAND=(user_a user_b)`:  `declare -a PROMPT_COMMAND=([0]="__tether_prompt_update" [1]="user_a" [2]="user_b")`,
		`unset PROMPT_COMMAND`:            `declare -- PROMPT_COMMAND="__tether_prompt_update"`,
	} {
		rc := filepath.Join(dir, "rc")
		os.WriteFile(rc, []byte(setup+"\nsource \"$D/init.bash\"\nsource \"$D/init.bash\"\n"), 0o600)
		cmd := exec.Command(prog, "--noprofile", "--rcfile", rc, "-i", "-c",
			`declare -p PROMPT_COMMAND; (exit 3); __tether_prompt_update; echo "status=$? prompt=$TETHER_PROMPT"`)
		cmd.Env = []string{"D=" + dir, "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", setup, err)
		}
		if got := string(out); got != want+"\nstatus=3 prompt=ctx 9%\n" {
			t.Errorf("%s:\n got %q\nwant %q", setup, got, want)
		}
	}
}

// TestBashCompletionFallsBack: where tether has nothing to offer, the
// completion registered before the init (even when sourced twice) runs.
func TestBashCompletionFallsBack(t *testing.T) {
	prog := need(t, "bash")
	dir := t.TempDir()
	fake := filepath.Join(dir, "tether")
	// A tether that offers ids after -r and has no opinion elsewhere.
	os.WriteFile(fake, []byte("#!/bin/sh\ncase \"$5\" in *'-r ') echo id-1; echo id-2;; *) exit 1;; esac\n"), 0o755)
	script, _ := Render(Bash{}, Options{Bin: fake, Completion: true})
	os.WriteFile(filepath.Join(dir, "init.bash"), []byte(script), 0o600)
	rc := filepath.Join(dir, "rc")
	os.WriteFile(rc, []byte("_prev_claude() { COMPREPLY=(from-previous \"$2\"); }\ncomplete -F _prev_claude claude\n"+
		"source \"$D/init.bash\"\nsource \"$D/init.bash\"\n"), 0o600)
	complete := func(line string) string {
		cmd := exec.Command(prog, "--noprofile", "--rcfile", rc, "-i", "-c",
			`COMP_LINE=$1; COMP_POINT=${#1}; read -ra COMP_WORDS <<<"$1"; __tether_complete claude "${COMP_WORDS[-1]}" x; complete -p claude; printf '%s,' "${COMPREPLY[@]}"`, "x", "claude "+line)
		cmd.Env = []string{"D=" + dir, "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return string(out)
	}
	if got := complete("-r "); got != "complete -o nosort -F __tether_complete claude\nid-1,id-2," {
		t.Errorf("ids: %q", got)
	}
	if got := complete("--mod"); got != "complete -o nosort -F __tether_complete claude\nfrom-previous,--mod," {
		t.Errorf("fallback: %q", got)
	}
}

// TestZshPromptHook: one precmd hook after sourcing twice, $? kept, and
// the user's options (ksh_arrays, sh_word_split) do not leak in.
func TestZshPromptHook(t *testing.T) {
	prog := need(t, "zsh")
	dir := t.TempDir()
	fake := filepath.Join(dir, "tether")
	os.WriteFile(fake, []byte("#!/bin/sh\nprintf 'ctx 9%%%%\\n/no/state\\n/no/stamp\\n'\n"), 0o755)
	script, _ := Render(Zsh{}, Options{Bin: fake, Prompt: true})
	os.WriteFile(filepath.Join(dir, "init.zsh"), []byte(script), 0o600)
	cmd := exec.Command(prog, "-f", "-i", "-c", `setopt ksh_arrays sh_word_split
source $D/init.zsh; source $D/init.zsh
print -r -- "hooks=${#precmd_functions[@]}"
(exit 3); __tether_prompt_update; print -r -- "status=$? prompt=$TETHER_PROMPT state=$__tether_prompt_state"`)
	cmd.Env = []string{"D=" + dir, "HOME=" + dir, "PATH=" + os.Getenv("PATH"), "ZDOTDIR=" + dir}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "hooks=1\nstatus=3 prompt=ctx 9%% state=/no/state\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestBindKey(t *testing.T) {
	cases := []struct {
		sh        Shell
		key, want string
	}{
		{Bash{}, "ctrl-g", `"\C-g"`}, {Bash{}, "alt-p", `"\ep"`}, {Bash{}, "Ctrl+R", `"\C-r"`},
		{Zsh{}, "ctrl-g", `'^G'`}, {Zsh{}, "alt-7", `'^[7'`},
		{Fish{}, "ctrl-g", `\cg`}, {Fish{}, "alt-p", `\ep`},
	}
	for _, c := range cases {
		if got, err := BindKey(c.sh, c.key); err != nil || got != c.want {
			t.Errorf("%s %s: %s, %v; want %s", c.sh.Name(), c.key, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "g", "ctrl-", "ctrl-gg", "ctrl-1", "shift-g", "ctrl-'", "alt-;"} {
		if got, err := BindKey(Bash{}, bad); err == nil {
			t.Errorf("%q accepted as %s", bad, got)
		}
	}
	if _, err := Render(Bash{}, Options{Bin: "/x/tether", Bind: "ctrl-'"}); err == nil {
		t.Error("Render accepted a bad key")
	}
}
