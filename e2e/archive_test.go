//go:build e2e

// The archive against the real CLIs: a session is made, its transcript is
// unlinked the way Claude Code's cleanup does it, tether lists it as
// archived, and `tether sessions resume` (--print and exec) and the
// wrapper restore it so that the real CLI resumes it and the fake API
// receives the earlier prompts. Once with hard links on the same file
// system, once with the archive on another file system (a tmpfs when this
// user may mount one, else [archive] mode = "copy").
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// archiveMode sets up the archive for one scenario and says where it is.
func archiveMode(t *testing.T, env *harness.Env, mode string) string {
	t.Helper()
	dir := filepath.Join(env.Home, ".local", "share", "tether", "archive")
	conf := ""
	switch mode {
	case "link":
	case "copy":
		conf = "[archive]\nmode = \"copy\"\n"
	case "other-fs":
		mnt := filepath.Join(env.Home, "tmpfs")
		os.MkdirAll(mnt, 0o700)
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", mnt).CombinedOutput(); err != nil {
			t.Logf("no tmpfs (%v: %s): copy mode instead", err, strings.TrimSpace(string(out)))
			conf = "[archive]\nmode = \"copy\"\n"
			break
		}
		t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		dir = filepath.Join(mnt, "archive")
		conf = fmt.Sprintf("[archive]\ndir = %q\n", dir)
	}
	if conf != "" {
		p := filepath.Join(env.Home, ".config", "tether", "config.toml")
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shim makes the program the wrapper runs for name (TETHER_<NAME>_BIN; it
// is first on PATH too) a script that runs the real CLI with script (a
// shell body; $REAL is the real binary): `tether sessions resume` without
// --print runs `tether run claude --resume ID`, which a test turns into a
// -p run. The caller points TETHER_<NAME>_BIN back at the real CLI after.
func shim(t *testing.T, env *harness.Env, name, real, script string) {
	t.Helper()
	dir := filepath.Join(env.Home, "shims")
	os.MkdirAll(dir, 0o755)
	body := "#!/bin/sh\nREAL='" + real + "'\n" + script + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	env.Setenv("TETHER_"+strings.ToUpper(name)+"_BIN", filepath.Join(dir, name))
}

func stateOf(t *testing.T, env *harness.Env, id string) string {
	t.Helper()
	for _, s := range listJSON(t, env, "--all").Sessions {
		if s.ID == id {
			return s.State
		}
	}
	return ""
}

// sawPrompts fails unless the last model request carried every prompt.
func sawPrompts(t *testing.T, api *fakeapi.Server, step string, prompts ...string) {
	t.Helper()
	req, ok := api.LastModelRequest()
	if !ok {
		t.Fatalf("%s: no model request", step)
	}
	all := strings.Join(req.UserTexts(), "\n")
	for _, p := range prompts {
		if !strings.Contains(all, p) {
			t.Fatalf("%s: the resumed request lacks the earlier prompt %q (user texts %q)", step, p, req.UserTexts())
		}
	}
}

func TestArchiveClaude(t *testing.T) {
	clis := harness.CLIs(t)
	type scenario struct{ version, bin, mode string }
	var cases []scenario
	for _, v := range []struct{ name, bin string }{{"2.1.332", clis.Claude}, {"2.0.77", clis.ClaudeOld}} {
		cases = append(cases, scenario{v.name, v.bin, "link"}, scenario{v.name, v.bin, "other-fs"})
	}
	cases = append(cases, scenario{"2.1.332", clis.Claude, "copy"})
	for _, c := range cases {
		t.Run(c.version+"/"+c.mode, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			env, api, tetherBin := wrapEnv(t, c.bin)
			store := archiveMode(t, env, c.mode)
			dir := env.ProjectDir("project")
			sj := []string{"--output-format", "stream-json", "--verbose"}

			sid := claudeP(t, env, c.bin, dir, "-p", "FIRST_ARCHIVE_PROMPT")
			transcripts := env.ClaudeTranscripts()
			transcript := ""
			for _, p := range transcripts {
				if strings.HasSuffix(p, sid+".jsonl") {
					transcript = p
				}
			}
			if transcript == "" {
				t.Fatalf("no transcript for %s in %v", sid, transcripts)
			}
			if st := stateOf(t, env, sid); st != "resumable" {
				t.Fatalf("live state %q", st)
			}
			rel, _ := filepath.Rel(env.ClaudeConfigDir, transcript)
			stored := filepath.Join(store, "claude-code", rel)
			if _, err := os.Stat(stored); err != nil {
				t.Fatalf("the listing did not archive the transcript: %v", err)
			}
			if wantCopy := c.mode != "link"; archive.IsCompressed(stored) != wantCopy {
				t.Fatalf("%s: stored file compressed = %v", c.mode, !wantCopy)
			}

			// 1. The cleanup unlinks it; tether lists it as archived; the
			// printed resume restores it and the real CLI resumes it.
			os.Remove(transcript)
			if st := stateOf(t, env, sid); st != "archived" {
				t.Fatalf("after unlink: state %q, want archived", st)
			}
			code, out, errOut := tether(t, env, "sessions", "resume", "--print", sid[:8])
			if code != 0 || !strings.Contains(out, "--resume "+sid) || !strings.Contains(errOut, "from tether's archive") {
				t.Fatalf("resume --print: exit %d out %q err %q", code, out, errOut)
			}
			r := env.Claude(ctx, c.bin, dir, append([]string{"-p", "--resume", sid, "SECOND_ARCHIVE_PROMPT"}, sj...)...)
			if r.ExitCode != 0 || sessionOf(t, r) != sid {
				t.Fatalf("claude --resume after restore: exit %d %s", r.ExitCode, r.Stderr)
			}
			sawPrompts(t, api, "print", "FIRST_ARCHIVE_PROMPT", "SECOND_ARCHIVE_PROMPT")

			// 2. Again, through tether sessions resume (exec).
			tether(t, env, "sessions") // a copy is refreshed with the appended turn
			os.Remove(transcript)
			shim(t, env, "claude", c.bin, `exec "$REAL" "$@" -p THIRD_ARCHIVE_PROMPT --output-format stream-json --verbose </dev/null`)
			r = env.Run(ctx, "tether sessions resume", tetherBin, env.Home, "sessions", "resume", sid)
			if r.ExitCode != 0 || !strings.Contains(r.Stderr, "from tether's archive") || sessionOf(t, r) != sid {
				t.Fatalf("tether sessions resume: exit %d stderr %q", r.ExitCode, r.Stderr)
			}
			sawPrompts(t, api, "exec", "FIRST_ARCHIVE_PROMPT", "SECOND_ARCHIVE_PROMPT", "THIRD_ARCHIVE_PROMPT")
			env.Setenv("TETHER_CLAUDE_BIN", c.bin)

			// 3. The wrapper: claude --resume ID through tether run.
			tether(t, env, "sessions")
			os.Remove(transcript)
			r = env.Run(ctx, "tether run claude --resume", tetherBin, dir,
				append([]string{"run", "claude", "-p", "--resume", sid, "FOURTH_ARCHIVE_PROMPT"}, sj...)...)
			if r.ExitCode != 0 || sessionOf(t, r) != sid {
				t.Fatalf("wrapped resume: exit %d stderr %q", r.ExitCode, r.Stderr)
			}
			if n := strings.Count(r.Stderr, "tether: restored session "+sid[:8]+" from tether's archive"); n != 1 || strings.Contains(r.Stderr, "starting fresh") {
				t.Fatalf("wrapped resume stderr %q", r.Stderr)
			}
			sawPrompts(t, api, "wrapper", "FIRST_ARCHIVE_PROMPT", "THIRD_ARCHIVE_PROMPT", "FOURTH_ARCHIVE_PROMPT")

			// A restore never replaces a file: exit 4.
			tether(t, env, "sessions")
			if code, _, errOut := tether(t, env, "archive", "restore", sid); code != 4 {
				t.Errorf("restore over a live transcript: exit %d %q", code, errOut)
			}
		})
	}
}

func TestArchiveCodex(t *testing.T) {
	clis := harness.CLIs(t)
	for _, mode := range []string{"link", "other-fs"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			api := startAPI(t)
			env := harness.NewEnv(t, api)
			env.Setenv("TETHER_CODEX_BIN", clis.Codex)
			tetherBin := harness.Tether(t)
			store := archiveMode(t, env, mode)
			cwd := env.ProjectDir("project")
			res := env.Codex(ctx, clis.Codex, cwd, append(append([]string{"exec"}, codexExecFlags...), "FIRST_CODEX_ARCHIVE")...)
			if res.ExitCode != 0 {
				t.Fatalf("codex exec: exit %d %s", res.ExitCode, res.Stderr)
			}
			rollouts := env.CodexRollouts()
			if len(rollouts) != 1 {
				t.Fatalf("rollouts %v", rollouts)
			}
			rollout := rollouts[0]
			var thread string
			for _, s := range listJSON(t, env).Sessions {
				if s.Harness == "codex" {
					thread = s.ID
				}
			}
			if thread == "" || !strings.Contains(rollout, thread) {
				t.Fatalf("thread %q rollout %s", thread, rollout)
			}
			rel, _ := filepath.Rel(env.CodexHome, rollout)
			if _, err := os.Stat(filepath.Join(store, "codex", rel)); err != nil {
				t.Fatalf("not archived: %v", err)
			}
			os.Remove(rollout)
			if st := stateOf(t, env, thread); st != "archived" {
				t.Fatalf("after unlink: state %q", st)
			}
			// tether sessions resume: restores the rollout to its path and
			// runs codex resume ID (a shim makes it an exec turn).
			shim(t, env, "codex", clis.Codex, `shift; exec "$REAL" exec --skip-git-repo-check --dangerously-bypass-hook-trust resume "$1" SECOND_CODEX_ARCHIVE </dev/null`)
			r := env.Run(ctx, "tether sessions resume codex", tetherBin, env.Home, "sessions", "resume", "codex:"+thread)
			if r.ExitCode != 0 || !strings.Contains(r.Stderr, "from tether's archive") {
				t.Fatalf("resume: exit %d %q", r.ExitCode, r.Stderr)
			}
			if _, err := os.Stat(rollout); err != nil {
				t.Fatalf("rollout not restored to its path: %v", err)
			}
			sawPrompts(t, api, "codex exec", "FIRST_CODEX_ARCHIVE", "SECOND_CODEX_ARCHIVE")
			env.Setenv("TETHER_CODEX_BIN", clis.Codex)
			// The wrapper: codex exec resume ID.
			tether(t, env, "sessions")
			os.Remove(rollout)
			r = env.Run(ctx, "tether run codex exec resume", tetherBin, cwd,
				append(append([]string{"run", "codex", "exec"}, codexExecFlags...), "resume", thread, "THIRD_CODEX_ARCHIVE")...)
			if r.ExitCode != 0 || !strings.Contains(r.Stderr, "tether: restored session "+thread[:8]+" from tether's archive") || strings.Contains(r.Stderr, "starting fresh") {
				t.Fatalf("wrapped: exit %d %q", r.ExitCode, r.Stderr)
			}
			sawPrompts(t, api, "wrapper", "FIRST_CODEX_ARCHIVE", "SECOND_CODEX_ARCHIVE", "THIRD_CODEX_ARCHIVE")
			if got := env.CodexRollouts(); !slices.Equal(got, []string{rollout}) {
				t.Errorf("rollouts after the restores: %v", got)
			}
		})
	}
}

// TestArchiveByHooks: with tether's hooks installed and no listing at all,
// the real CLI's SessionStart/SessionEnd hooks link the transcript into
// the archive, so a cleanup right after the session loses nothing.
func TestArchiveByHooks(t *testing.T) {
	clis := harness.CLIs(t)
	t.Parallel()
	env, _, bin := hooksEnv(t)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	runTether(t, env, bin, "hooks", "install")
	dir := env.ProjectDir("project")
	sid := claudeP(t, env, clis.Claude, dir, "-p", "HOOK_ARCHIVE_PROMPT")
	var transcript string
	for _, p := range env.ClaudeTranscripts() {
		if strings.HasSuffix(p, sid+".jsonl") {
			transcript = p
		}
	}
	rel, _ := filepath.Rel(env.ClaudeConfigDir, transcript)
	stored := filepath.Join(env.Home, ".local", "share", "tether", "archive", "claude-code", rel)
	// SessionEnd can finish just after the CLI exits.
	deadline := time.Now().Add(10 * time.Second)
	for {
		a, err1 := os.Stat(stored)
		b, err2 := os.Stat(transcript)
		if err1 == nil && err2 == nil && os.SameFile(a, b) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hooks did not link %s into the archive (%v)", transcript, err1)
		}
		time.Sleep(100 * time.Millisecond)
	}
	os.Remove(transcript)
	if st := stateOf(t, env, sid); st != "archived" {
		t.Fatalf("state %q", st)
	}
}

// TestArchiveCodexSymlinkedHome: CODEX_HOME reached through a symlink (a
// dotfiles setup). The real Codex records the resolved rollout_path; the
// archive must still find it under CODEX_HOME, archive it (sync exits 0),
// and list it as archived once the rollout is gone.
func TestArchiveCodexSymlinkedHome(t *testing.T) {
	clis := harness.CLIs(t)
	t.Parallel()
	ctx := context.Background()
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	real := filepath.Join(env.Home, "dotfiles", "codex")
	os.MkdirAll(filepath.Dir(real), 0o755)
	if err := os.Rename(env.CodexHome, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, env.CodexHome); err != nil {
		t.Fatal(err)
	}
	store := archiveMode(t, env, "link")
	cwd := env.ProjectDir("project")
	res := env.Codex(ctx, clis.Codex, cwd, append(append([]string{"exec"}, codexExecFlags...), "SYMLINKED_CODEX_HOME")...)
	if res.ExitCode != 0 {
		t.Fatalf("codex exec: exit %d %s", res.ExitCode, res.Stderr)
	}
	rollouts := env.CodexRollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts %v", rollouts)
	}
	rel, _ := filepath.Rel(env.CodexHome, rollouts[0])
	code, out, errOut := tether(t, env, "archive", "sync")
	if code != 0 {
		t.Fatalf("archive sync: exit %d out %q err %q", code, out, errOut)
	}
	stored := filepath.Join(store, "codex", rel)
	a, err := os.Stat(stored)
	if err != nil {
		t.Fatalf("sync did not archive the thread: %v (out %q)", err, out)
	}
	if b, err := os.Stat(filepath.Join(real, rel)); err != nil || !os.SameFile(a, b) {
		t.Fatalf("stored file is not a link to the rollout (%v)", err)
	}
	var thread string
	for _, s := range listJSON(t, env).Sessions {
		if s.Harness == "codex" {
			thread = s.ID
		}
	}
	os.Remove(filepath.Join(real, rel))
	if st := stateOf(t, env, thread); thread == "" || st != "archived" {
		t.Fatalf("thread %q after unlink: state %q", thread, st)
	}
}

// TestArchiveLinkTranscriptRewrittenInPlace: link mode, and a real Claude
// Code transcript rewritten in place (an editor writing in place cuts the
// second turn). The link shared the file, so the cut reached the archive:
// sync says so, breaks the link and keeps the session as a copy; the real
// CLI resumes and appends; the next in-place cut keeps the earlier copy;
// after the cleanup the copy is restored and resumed.
func TestArchiveLinkTranscriptRewrittenInPlace(t *testing.T) {
	clis := harness.CLIs(t)
	t.Parallel()
	ctx := context.Background()
	env, api, _ := wrapEnv(t, clis.Claude)
	store := archiveMode(t, env, "link")
	dir := env.ProjectDir("project")
	sj := []string{"--output-format", "stream-json", "--verbose"}
	sid := claudeP(t, env, clis.Claude, dir, "-p", "FIRST_INPLACE_PROMPT")
	resume := func(prompt string) {
		t.Helper()
		r := env.Claude(ctx, clis.Claude, dir, append([]string{"-p", "--resume", sid, prompt}, sj...)...)
		if r.ExitCode != 0 || sessionOf(t, r) != sid {
			t.Fatalf("claude --resume %s: exit %d %s", prompt, r.ExitCode, r.Stderr)
		}
	}
	resume("SECOND_INPLACE_PROMPT")
	var transcript string
	for _, p := range env.ClaudeTranscripts() {
		if strings.HasSuffix(p, sid+".jsonl") {
			transcript = p
		}
	}
	rel, _ := filepath.Rel(env.ClaudeConfigDir, transcript)
	stored := filepath.Join(store, "claude-code", rel)
	sync := func() (string, string) {
		t.Helper()
		code, out, errOut := tether(t, env, "archive", "sync")
		if code != 0 {
			t.Fatalf("archive sync: exit %d %q %q", code, out, errOut)
		}
		return out, errOut
	}
	sync()
	if a, b := mustStat(t, stored), mustStat(t, transcript); !os.SameFile(a, b) {
		t.Fatal("not linked")
	}
	// cut rewrites the transcript in place (same inode) up to the line
	// before the one holding marker.
	cut := func(marker string) []byte {
		t.Helper()
		b, _ := os.ReadFile(transcript)
		i := strings.Index(string(b), marker)
		if i < 0 {
			t.Fatalf("%s not in the transcript", marker)
		}
		head := b[:strings.LastIndexByte(string(b[:i]), '\n')+1]
		before := mustStat(t, transcript)
		if err := os.WriteFile(transcript, head, 0o600); err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before, mustStat(t, transcript)) {
			t.Fatal("not rewritten in place")
		}
		return head
	}
	head := cut("SECOND_INPLACE_PROMPT")
	_, errOut := sync()
	if !strings.Contains(errOut, transcript+" was truncated or rewritten in place") {
		t.Fatalf("sync said %q", errOut)
	}
	if !archive.IsCompressed(stored) {
		t.Fatal("the link was not broken")
	}
	var got strings.Builder
	if _, err := archive.Decompress(&got, stored); err != nil || got.String() != string(head) {
		t.Fatalf("stored copy (%v) is not what the transcript holds", err)
	}
	// The real CLI resumes the cut transcript and appends; a listing
	// refreshes the copy; the next in-place cut keeps it.
	resume("THIRD_INPLACE_PROMPT")
	tether(t, env, "sessions")
	full, _ := os.ReadFile(transcript)
	cut("THIRD_INPLACE_PROMPT")
	if _, errOut := sync(); !strings.Contains(errOut, "the archive's earlier copy is kept at") {
		t.Fatalf("second cut: sync said %q", errOut)
	}
	kept, _ := filepath.Glob(filepath.Join(store, ".replaced", "claude-code", rel+".*"))
	if len(kept) != 1 {
		t.Fatalf("kept copies %v", kept)
	}
	got.Reset()
	if _, err := archive.Decompress(&got, kept[0]); err != nil || got.String() != string(full) {
		t.Fatalf("kept copy (%v) lacks the third turn", err)
	}
	// The cleanup: the archived copy comes back and resumes.
	os.Remove(transcript)
	if code, _, errOut := tether(t, env, "sessions", "resume", "--print", sid[:8]); code != 0 || !strings.Contains(errOut, "from tether's archive") {
		t.Fatalf("resume --print: exit %d %q", code, errOut)
	}
	resume("FOURTH_INPLACE_PROMPT")
	sawPrompts(t, api, "after restore", "FIRST_INPLACE_PROMPT", "FOURTH_INPLACE_PROMPT")
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
