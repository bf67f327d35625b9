//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// recorder stands in for claude or codex: it writes its directory and
// argv, one per line, to $PICK_RECORD. pwd is the logical directory ($PWD
// when it names the working directory), so a symlinked cwd reads back as
// recorded.
const recorder = `#!/bin/sh
{ pwd; for a in "$@"; do printf '%s\n' "$a"; done; } > "$PICK_RECORD"
`

const pickWait = 20 * time.Second

// pickEnv makes a HOME with a generated history and recording fakes for
// claude and codex, and returns one resumable session of each harness
// with little context in use (so the wrapper has nothing to trim).
func pickEnv(t *testing.T) (*harness.Env, map[string]listedSession, string) {
	t.Helper()
	harness.RequireTmux(t)
	env := harness.NewEnv(t, startAPI(t))
	out, err := exec.Command(genCorpus(t), "-dir", env.Home, "-sessions", "60",
		"-projects", "6", "-seed", "3", "-max-size", "256K").CombinedOutput()
	if err != nil {
		t.Fatalf("gen-corpus: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	os.MkdirAll(bin, 0o755)
	for _, name := range []string{"claude", "codex"} {
		p := filepath.Join(bin, name)
		if err := os.WriteFile(p, []byte(recorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env.Setenv("TETHER_CLAUDE_BIN", filepath.Join(bin, "claude"))
	env.Setenv("TETHER_CODEX_BIN", filepath.Join(bin, "codex"))
	env.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	record := filepath.Join(t.TempDir(), "record")
	env.Setenv("PICK_RECORD", record)
	picked := map[string]listedSession{}
	for _, s := range listJSON(t, env).Sessions {
		if _, ok := picked[s.Harness]; ok || s.State != "resumable" || s.Context == nil || s.Context.Tokens > 50000 {
			continue
		}
		if fi, err := os.Stat(s.Cwd); err != nil || !fi.IsDir() {
			continue
		}
		picked[s.Harness] = s
	}
	if len(picked) != 2 {
		t.Fatalf("the corpus lacks a small resumable session of each harness: %v", picked)
	}
	return env, picked, record
}

type listedSession = struct {
	Harness, ID, Cwd, IdentityRoot, Title, TitleSource, State, Origin string
	Runtime                                                           *struct{ PID int }
	Context                                                           *struct{ Tokens int64 }
}

// TestPickNarrowsAndResumesThroughTheWrapper types a session's id, sees
// the list narrow to it, presses Enter, and checks the fake CLI ran with
// exactly the resume argv, in the session's directory.
func TestPickNarrowsAndResumesThroughTheWrapper(t *testing.T) {
	env, picked, record := pickEnv(t)
	// No subtests: the env's tmux helpers fail the test that made it.
	for _, h := range []string{"claude-code", "codex"} {
		func() {
			s := picked[h]
			os.Remove(record)
			tm := env.StartTmux(env.Home, harness.Tether(t), "pick")
			tm.WaitFor("tether pick", pickWait)
			// The whole id: a prefix also matches other ids fuzzily.
			tm.SendText(s.ID)
			screen, ok := tm.WaitUntil(func(sc string) bool { return strings.Contains(sc, " 1/") }, pickWait)
			if !ok || !strings.Contains(screen, s.ID[:8]) {
				t.Fatalf("%s: typing %s did not narrow to one row:\n%s", h, s.ID, screen)
			}
			tm.SendKeys("Enter")
			tm.WaitExit(pickWait)
			data, err := os.ReadFile(record)
			if err != nil {
				t.Fatalf("%s: the fake %s did not run: %v\n%s", h, h, err, tm.Capture())
			}
			want := []string{s.Cwd, "--resume", s.ID}
			if h == "codex" {
				want = []string{s.Cwd, "resume", s.ID}
			}
			if got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s: the fake ran as\n %q\nwant\n %q", h, got, want)
			}
			tm.Kill()
		}()
	}
}

// TestPickTerminalManners: the picker redraws to a new size, and Ctrl-C
// (and Esc) leave with status 130 and the terminal exactly as it was.
func TestPickTerminalManners(t *testing.T) {
	env, picked, _ := pickEnv(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
stty -a > "$1/before"
"$2" pick
rc=$?
stty -a > "$1/after"
echo "rc=$rc" > "$1/rc"
`), 0o755)
	for _, key := range []string{"C-c", "Escape"} {
		func() {
			os.Remove(filepath.Join(dir, "rc"))
			tm := env.StartTmux(env.Home, "/bin/sh", script, dir, harness.Tether(t))
			tm.WaitFor("tether pick", pickWait)
			if key == "C-c" {
				// Resize while open: the frame is redrawn to fit.
				if out, err := exec.Command("tmux", "-L", tm.Socket, "resize-window", "-t", tm.Session, "-x", "80", "-y", "24").CombinedOutput(); err != nil {
					t.Fatalf("resize: %v %s", err, out)
				}
				tm.SendText(picked["codex"].ID)
				screen, ok := tm.WaitUntil(func(sc string) bool { return strings.Contains(sc, " 1/") }, pickWait)
				lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
				if !ok || len(lines) > 24 {
					t.Errorf("after resize to 80x24: %d lines:\n%s", len(lines), screen)
				}
				for _, l := range lines {
					if len([]rune(l)) > 80 {
						t.Errorf("line wider than 80 after resize: %q", l)
					}
				}
			}
			tm.SendKeys(key)
			tm.WaitExit(pickWait)
			rc, _ := os.ReadFile(filepath.Join(dir, "rc"))
			before, _ := os.ReadFile(filepath.Join(dir, "before"))
			after, _ := os.ReadFile(filepath.Join(dir, "after"))
			if strings.TrimSpace(string(rc)) != "rc=130" {
				t.Errorf("%s: %s, want rc=130", key, rc)
			}
			// The resize changes rows and columns; every mode must be back.
			size := regexp.MustCompile(`rows \d+; columns \d+;`)
			before, after = size.ReplaceAll(before, nil), size.ReplaceAll(after, nil)
			if len(before) == 0 || string(before) != string(after) {
				t.Errorf("%s: the terminal was not restored:\nbefore %s\nafter  %s", key, before, after)
			}
			tm.Kill()
		}()
	}
}

// TestPickShellKey: with `tether init SHELL --bind ctrl-g`, the key opens
// the picker in a live bash, zsh and fish; Enter on a session runs its
// resume command in that shell (through the wrapper, in the session's
// directory) and the shell prompts again afterwards.
func TestPickShellKey(t *testing.T) {
	harness.RequireTmux(t)
	tether := harness.Tether(t)
	for _, sc := range shellCases {
		t.Run(sc.name, func(t *testing.T) {
			if _, err := exec.LookPath(sc.name); err != nil {
				t.Skipf("%s not installed", sc.name)
			}
			env, picked, record := pickEnv(t)
			initLine := `eval "$('` + tether + `' init ` + sc.name + ` --bind ctrl-g)"`
			if sc.name == "fish" {
				initLine = `'` + tether + `' init fish --bind ctrl-g | source`
			}
			argv := sc.rc(t, env, initLine)
			tm := env.StartTmux(env.Home, argv[0], argv[1:]...)
			tm.WaitFor("[rc=0", shellWait)
			tm.SendKeys("C-g")
			tm.WaitFor("tether pick", pickWait)
			s := picked["claude-code"]
			tm.SendText(s.ID)
			if screen, ok := tm.WaitUntil(func(sc string) bool { return strings.Contains(sc, " 1/") }, pickWait); !ok {
				t.Fatalf("the picker did not narrow to %s:\n%s", s.ID, screen)
			}
			tm.SendKeys("Enter")
			var data []byte
			deadline := time.Now().Add(pickWait)
			for time.Now().Before(deadline) {
				if d, err := os.ReadFile(record); err == nil && len(d) > 0 {
					data = d
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			want := s.Cwd + "\n--resume\n" + s.ID + "\n"
			if string(data) != want {
				t.Fatalf("the fake claude ran as %q, want %q; screen:\n%s", data, want, tm.Capture())
			}
			// The command ran in this shell: it is on screen as typed, and
			// the prompt comes back.
			screen, ok := tm.WaitUntil(func(sc string) bool {
				return strings.Contains(sc, "--resume") && strings.Count(sc, "[rc=0") >= 2
			}, shellWait)
			if !ok {
				t.Errorf("the resume command did not run as a command line of the shell:\n%s", screen)
			}
		})
	}
}

// TestPickNoColor: under NO_COLOR the screen carries no colour, while the
// selection is still marked (reverse video).
func TestPickNoColor(t *testing.T) {
	env, _, _ := pickEnv(t)
	env.Setenv("NO_COLOR", "1")
	tm := env.StartTmux(env.Home, harness.Tether(t), "pick")
	tm.WaitFor("tether pick", pickWait)
	out, err := exec.Command("tmux", "-L", tm.Socket, "capture-pane", "-p", "-e", "-t", tm.Session).CombinedOutput()
	if err != nil {
		t.Fatalf("capture: %v %s", err, out)
	}
	screen := string(out)
	if c := colourSGR(screen); c != "" {
		t.Errorf("colour escape %q under NO_COLOR:\n%q", c, screen)
	}
	if !strings.Contains(screen, "\x1b[7m") {
		t.Errorf("the selection is not in reverse video:\n%q", screen)
	}
	tm.SendKeys("Escape")
}

// colourSGR returns the first SGR sequence in s that sets a colour
// (30–38, 40–48, 90–97, 100–107), or "".
func colourSGR(s string) string {
	for _, m := range regexp.MustCompile(`\x1b\[([0-9;:]*)m`).FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				return m[0]
			}
			if n == 38 || n == 48 {
				break // the rest are colour components
			}
		}
	}
	return ""
}

// TestPickTmuxWindow: inside tmux, ctrl+t resumes the session in a new
// window of the same tmux session (through the wrapper, in its directory)
// and the picker exits.
func TestPickTmuxWindow(t *testing.T) {
	env, picked, record := pickEnv(t)
	s := picked["codex"]
	tm := env.StartTmux(env.Home, harness.Tether(t), "pick")
	tm.WaitFor("ctrl+t tmux", pickWait)
	tm.SendText(s.ID)
	if screen, ok := tm.WaitUntil(func(sc string) bool { return strings.Contains(sc, " 1/") }, pickWait); !ok {
		t.Fatalf("no narrowing:\n%s", screen)
	}
	tm.SendKeys("C-t")
	var data []byte
	for deadline := time.Now().Add(pickWait); time.Now().Before(deadline) && len(data) == 0; time.Sleep(100 * time.Millisecond) {
		data, _ = os.ReadFile(record)
	}
	if want := s.Cwd + "\nresume\n" + s.ID + "\n"; string(data) != want {
		t.Fatalf("the fake codex ran as %q, want %q", data, want)
	}
	out, err := exec.Command("tmux", "-L", tm.Socket, "list-windows", "-t", tm.Session, "-F", "#{window_name}").CombinedOutput()
	if err != nil || strings.Count(string(out), "\n") != 2 || !strings.Contains(string(out), catalog.TmuxName(filepath.Base(s.Cwd))) {
		t.Errorf("want the picker's window and a new one named after the directory: %q %v", out, err)
	}
}

// genCorpus builds the corpus generator (tools/gencorpus, not part
// of the shipped binary) once per test binary.
func genCorpus(t *testing.T) string {
	t.Helper()
	genOnce.Do(func() {
		root, err := testutil.ModuleRoot()
		if err != nil {
			genErr = err
			return
		}
		dir, err := os.MkdirTemp("", "tether-e2e-gencorpus-")
		if err != nil {
			genErr = err
			return
		}
		genBin = filepath.Join(dir, "gencorpus")
		cmd := exec.Command("go", "build", "-o", genBin, "./tools/gencorpus")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			genErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if genErr != nil {
		t.Fatalf("e2e: building gencorpus: %v", genErr)
	}
	return genBin
}

var (
	genOnce sync.Once
	genBin  string
	genErr  error
)

// TestPickCacheTruncatedWhileOpen (issue 23, item 11): the catalog's
// caches truncated in place (as a careless tool or a full disk's repair
// might) while the picker shows what it read from them: the picker keeps
// working (no fault on its next read of a title), exits as asked, and
// the terminal's modes are as before.
func TestPickCacheTruncatedWhileOpen(t *testing.T) {
	env, picked, _ := pickEnv(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
stty -a > "$1/before"
"$2" pick
rc=$?
stty -a > "$1/after"
echo "rc=$rc" > "$1/rc"
`), 0o755)
	// No snapshot: the rows are the listing's, decoded from the caches.
	os.Remove(filepath.Join(env.Home, ".cache", "tether", "picker-sessions.gob"))
	tm := env.StartTmux(env.Home, "/bin/sh", script, dir, harness.Tether(t))
	defer tm.Kill()
	tm.WaitFor("tether pick", pickWait)
	// The background listing has replaced the snapshot's rows with the
	// catalog's (read from its caches) well before this.
	time.Sleep(3 * time.Second)
	caches, _ := filepath.Glob(filepath.Join(env.Home, ".cache", "tether", "catalog-*.gob"))
	if len(caches) == 0 {
		t.Fatal("no catalog cache to truncate")
	}
	for _, p := range caches {
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	tm.SendText(picked["codex"].ID)
	if _, ok := tm.WaitUntil(func(sc string) bool { return strings.Contains(sc, " 1/") }, pickWait); !ok {
		t.Errorf("the picker did not narrow to the session after the truncation:\n%s", tm.Capture())
	}
	// Its preview reads the session the listing decoded from the caches.
	id := picked["codex"].ID
	if _, ok := tm.WaitUntil(func(sc string) bool { return strings.Count(sc, id) >= 2 }, pickWait); !ok {
		t.Errorf("no preview of the session after the truncation:\n%s", tm.Capture())
	}
	tm.SendKeys("Escape")
	tm.WaitExit(pickWait)
	rc, _ := os.ReadFile(filepath.Join(dir, "rc"))
	before, _ := os.ReadFile(filepath.Join(dir, "before"))
	after, _ := os.ReadFile(filepath.Join(dir, "after"))
	if strings.TrimSpace(string(rc)) != "rc=130" {
		t.Errorf("exit: %s, want rc=130 (Escape)", rc)
	}
	if len(before) == 0 || string(before) != string(after) {
		t.Errorf("the terminal was not restored:\nbefore %s\nafter  %s", before, after)
	}
}
