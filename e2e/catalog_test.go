//go:build e2e

// The catalog against sessions written by the real CLIs: both Claude Code
// versions and Codex, in plain, punctuated, non-ASCII and symlinked
// directories, -p and exec sessions, a resumed session, a fork, a running
// session, and empty and corrupt transcripts beside them.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// tether runs one tether command line in env's HOME: the binary the
// harness built from this checkout, in env's environment.
func tether(t *testing.T, env *harness.Env, args ...string) (int, string, string) {
	t.Helper()
	r := env.Run(context.Background(), "tether", harness.Tether(t), "", args...)
	if r.Err != nil && r.ExitCode < 0 {
		t.Fatalf("tether %v: %v", args, r.Err)
	}
	return r.ExitCode, r.Stdout, r.Stderr
}

type listed struct {
	Sessions []struct {
		Harness, ID, Cwd, IdentityRoot, Title, TitleSource, State, Origin string
		Runtime                                                           *struct{ PID int }
		Context                                                           *struct{ Tokens int64 }
	}
	Diagnostics []struct{ Path, Problem string }
}

func listJSON(t *testing.T, env *harness.Env, args ...string) listed {
	t.Helper()
	code, out, errOut := tether(t, env, append([]string{"sessions", "list", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("sessions list %v: exit %d: %s", args, code, errOut)
	}
	var l listed
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("list output: %v\n%s", err, out)
	}
	return l
}

func claudeP(t *testing.T, env *harness.Env, bin, dir string, args ...string) string {
	t.Helper()
	res := env.Claude(context.Background(), bin, dir, append(args, "--output-format", "stream-json", "--verbose")...)
	if res.ExitCode != 0 {
		t.Fatalf("claude %v in %s: exit %d: %s", args, dir, res.ExitCode, res.Stderr)
	}
	final, ok := res.ClaudeResult()
	if !ok {
		t.Fatalf("no result event:\n%s", res.Stdout)
	}
	sid, _ := final["session_id"].(string)
	if sid == "" {
		t.Fatalf("no session id in %v", final)
	}
	return sid
}

type want struct {
	harness, cwdRoot, title string
}

func TestCatalogRealCLIs(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)

	plain := env.ProjectDir("plain")
	odd := env.ProjectDir(`odd dir (v2) it's $HOME & "q"`)
	uni := env.ProjectDir("ünïcødé-项目")
	real := env.ProjectDir("real")
	link := filepath.Join(env.Home, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	wants := map[string]want{}

	// Claude Code, both versions, -p sessions in each kind of directory.
	for _, c := range []struct{ name, bin string }{{"new", clis.Claude}, {"old", clis.ClaudeOld}} {
		for _, d := range []struct{ label, dir string }{{"plain", plain}, {"odd", odd}, {"uni", uni}, {"link", link}} {
			prompt := fmt.Sprintf("zebra%s%s please", c.name, d.label)
			sid := claudeP(t, env, c.bin, d.dir, "-p", prompt)
			root := d.dir
			if d.label == "link" {
				root = real
			}
			wants["claude-code:"+sid] = want{"claude-code", root, prompt}
		}
	}
	// A resumed -p session keeps its id; the fork gets a new one.
	base := claudeP(t, env, clis.Claude, plain, "-p", "walrus first")
	if again := claudeP(t, env, clis.Claude, plain, "-p", "--resume", base, "walrus again"); again != base {
		t.Errorf("resume changed the id: %s -> %s", base, again)
	}
	wants["claude-code:"+base] = want{"claude-code", plain, "walrus again"}
	fork := claudeP(t, env, clis.Claude, plain, "-p", "--resume", base, "--fork-session", "walrus fork")
	if fork == base {
		t.Errorf("fork kept the id %s", fork)
	}
	// Claude 2.1.332 writes the fork's last-prompt record with the
	// parent's first prompt ("walrus first"), and Claude's own title
	// precedence (lastPrompt before the first human prompt) follows it.
	wants["claude-code:"+fork] = want{"claude-code", plain, "walrus first|walrus fork"}

	// Codex exec sessions (a state DB is written) in two directories.
	for _, d := range []struct{ label, dir string }{{"plain", plain}, {"uni", uni}} {
		before := map[string]bool{}
		for _, p := range env.CodexRollouts() {
			before[p] = true
		}
		prompt := "yak" + d.label + " please"
		res := env.Codex(context.Background(), clis.Codex, d.dir, "exec", "--skip-git-repo-check", prompt)
		if res.ExitCode != 0 {
			t.Fatalf("codex in %s: exit %d: %s", d.dir, res.ExitCode, res.Stderr)
		}
		for _, p := range env.CodexRollouts() {
			if !before[p] {
				id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
				id = id[len(id)-36:]
				wants["codex:"+id] = want{"codex", d.dir, prompt}
			}
		}
	}

	// Codex 0.171.0 keeps a state DB: the list must come from it.
	if codex.StateDB(env.CodexHome) == "" {
		t.Errorf("no state_<N>.sqlite under %s", env.CodexHome)
	}

	// Corrupt and empty transcripts beside the real ones.
	proj := filepath.Join(env.ClaudeConfigDir, "projects", "-junk")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "00000000-0000-0000-0000-000000000000.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(proj, "11111111-0000-0000-0000-000000000000.jsonl"), []byte("\x00\x01binary\n"), 0o644)

	l := listJSON(t, env)
	got := map[string]int{}
	for i, s := range l.Sessions {
		got[s.Harness+":"+s.ID] = i
	}
	for key, w := range wants {
		i, ok := got[key]
		if !ok {
			t.Errorf("%s (%s) not listed", key, w.title)
			continue
		}
		s := l.Sessions[i]
		if s.IdentityRoot != w.cwdRoot {
			t.Errorf("%s: identity root %q, want %q (cwd %q)", key, s.IdentityRoot, w.cwdRoot, s.Cwd)
		}
		if !strings.Contains("|"+w.title+"|", "|"+s.Title+"|") {
			t.Errorf("%s: title %q (%s), want %q", key, s.Title, s.TitleSource, w.title)
		}
		if s.State != "resumable" {
			t.Errorf("%s: state %s", key, s.State)
		}
		if s.Context == nil || s.Context.Tokens == 0 {
			t.Errorf("%s: no context usage", key)
		}
	}
	if len(l.Sessions) != len(wants) {
		t.Errorf("%d sessions listed, want %d", len(l.Sessions), len(wants))
		for _, s := range l.Sessions {
			t.Logf("listed %s:%s %q %q", s.Harness, s.ID, s.Cwd, s.Title)
		}
	}
	if len(l.Diagnostics) != 2 {
		t.Errorf("diagnostics %+v, want the empty and the binary file", l.Diagnostics)
	}

	// --cwd through the symlink (with a trailing slash) finds both versions' sessions.
	if n := len(listJSON(t, env, "--cwd", link+"/").Sessions); n != 2 {
		t.Errorf("--cwd %s/: %d sessions, want 2", link, n)
	}
	if n := len(listJSON(t, env, "--cwd", uni, "--harness", "codex").Sessions); n != 1 {
		t.Errorf("--cwd %s --harness codex: %d sessions, want 1", uni, n)
	}

	// show, resume --print and search for each.
	for key, w := range wants {
		code, out, errOut := tether(t, env, "sessions", "show", "--json", key)
		if code != 0 {
			t.Errorf("show %s: exit %d %s", key, code, errOut)
			continue
		}
		var s struct {
			ID, Cwd string
			Counts  struct{ HumanPrompts int }
			Resume  struct{ Argv []string }
		}
		json.Unmarshal([]byte(out), &s)
		if s.Counts.HumanPrompts == 0 || len(s.Resume.Argv) == 0 {
			t.Errorf("show %s: %s", key, out)
		}
		code, out, errOut = tether(t, env, "sessions", "resume", "--print", key)
		if code != 0 {
			t.Errorf("resume --print %s: exit %d %s", key, code, errOut)
			continue
		}
		bin := "claude"
		if w.harness == "codex" {
			bin = "codex"
		}
		sh := exec.Command("sh", "-c", bin+`() { pwd -P; printf '%s\n' "$@"; }; `+strings.TrimSpace(out))
		ran, err := sh.CombinedOutput()
		id := strings.SplitN(key, ":", 2)[1]
		wantRan := w.cwdRoot + "\n"
		if w.harness == "codex" {
			wantRan += "resume\n" + id + "\n"
		} else {
			wantRan += "--resume\n" + id + "\n"
		}
		if err != nil || string(ran) != wantRan {
			t.Errorf("resume --print %s: %q ran as %q (%v), want %q", key, out, ran, err, wantRan)
		}
		word := strings.Fields(strings.Split(w.title, "|")[0])[0]
		code, out, _ = tether(t, env, "sessions", "search", "--json", word)
		var sr struct {
			Results []struct{ Session struct{ ID string } }
		}
		json.Unmarshal([]byte(out), &sr)
		found := false
		for _, r := range sr.Results {
			found = found || r.Session.ID == id
		}
		if code != 0 || !found {
			t.Errorf("search %q: exit %d, %s", word, code, out)
		}
	}
	// The fork and its parent share "walrus"; the parent's prompts are in
	// the fork too, so both match.
	_, out, _ := tether(t, env, "sessions", "search", "--json", "walrus")
	if strings.Count(out, `"harness": "claude-code"`) < 2 {
		t.Errorf("search walrus: %s", out)
	}
}

// TestCatalogRunningSession holds a Claude -p turn open with a slow fake
// reply and checks that the catalog sees it running and resume refuses it.
func TestCatalogRunningSession(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("busy")
	sid := claudeP(t, env, clis.Claude, dir, "-p", "first")
	api.SetStreamDelay(400 * time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		env.Claude(context.Background(), clis.Claude, dir, "-p", "--resume", sid, "slow one", "--output-format", "stream-json", "--verbose")
	}()
	defer wg.Wait()
	deadline := time.Now().Add(30 * time.Second)
	var l listed
	for time.Now().Before(deadline) {
		l = listJSON(t, env, "--state", "running")
		if len(l.Sessions) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(l.Sessions) != 1 || l.Sessions[0].ID != sid || l.Sessions[0].Runtime == nil {
		matches, _ := filepath.Glob(filepath.Join(env.ClaudeConfigDir, "sessions", "*.json"))
		var files bytes.Buffer
		for _, m := range matches {
			b, _ := os.ReadFile(m)
			files.Write(b)
		}
		t.Fatalf("running sessions %+v; pid files: %s", l.Sessions, files.String())
	}
	code, _, errOut := tether(t, env, "sessions", "resume", sid[:8])
	if code != 4 || !strings.Contains(errOut, "is running") {
		t.Errorf("resume of a running session: exit %d %q", code, errOut)
	}
	_ = fakeapi.Text
}

// TestCatalogRunningCodex: a Codex thread whose rollout a live process
// holds open is running, and resume refuses it.
func TestCatalogRunningCodex(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("busy")
	res := env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "first")
	if res.ExitCode != 0 {
		t.Fatalf("codex: %d %s", res.ExitCode, res.Stderr)
	}
	l := listJSON(t, env)
	if len(l.Sessions) != 1 || l.Sessions[0].State != "resumable" {
		t.Fatalf("after exit: %+v", l.Sessions)
	}
	id := l.Sessions[0].ID
	api.SetStreamDelay(400 * time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "resume", id, "slow one")
	}()
	defer wg.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		l = listJSON(t, env, "--state", "running")
		if len(l.Sessions) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(l.Sessions) != 1 || l.Sessions[0].ID != id || l.Sessions[0].Runtime == nil {
		t.Fatalf("running codex threads: %+v", l.Sessions)
	}
	code, _, errOut := tether(t, env, "sessions", "resume", "codex:"+id[:8])
	if code != 4 || !strings.Contains(errOut, "is running") {
		t.Errorf("resume of a running thread: exit %d %q", code, errOut)
	}
}
