//go:build e2e

// The list's message counts against sessions the real CLIs wrote: equal
// to show's for transcripts the list reads whole, unknown for longer ones
// until `tether sessions index` has counted them, and kept exact as a
// session grows.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
)

// listCounts is `sessions list --json`'s messages by session key
// ("unknown" when the list does not know it).
func listCounts(t *testing.T, env *harness.Env) map[string]string {
	t.Helper()
	code, out, errOut := tether(t, env, "sessions", "list", "--json")
	if code != 0 {
		t.Fatalf("sessions list: exit %d: %s", code, errOut)
	}
	var l struct {
		Sessions []struct {
			Harness, ID string
			Messages    *int
		}
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, s := range l.Sessions {
		m[s.Harness+":"+s.ID] = "unknown"
		if s.Messages != nil {
			m[s.Harness+":"+s.ID] = fmt.Sprint(*s.Messages)
		}
	}
	return m
}

// showCount is `sessions show --json`'s counts.messages.
func showCount(t *testing.T, env *harness.Env, key string) string {
	t.Helper()
	code, out, errOut := tether(t, env, "sessions", "show", "--json", key)
	if code != 0 {
		t.Fatalf("sessions show %s: exit %d: %s", key, code, errOut)
	}
	var s struct {
		Counts struct{ Messages int }
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(s.Counts.Messages)
}

func TestMessageCountsRealCLIs(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("counts")
	// A prompt long enough that two Codex turns make a rollout bigger
	// than a list reads (128 KiB), short enough for one argument.
	long := "TOOL_BASH please " + strings.Repeat("walrus ", 12<<10)

	// Claude Code: two sessions with a tool call, resumed once. 2.0.77
	// writes ~10 KiB for them; 2.1.332 over 128 KiB (it records the
	// system prompt and request shapes), too much for a list to count.
	short := claudeP(t, env, clis.ClaudeOld, dir, "-p", "TOOL_BASH please")
	claudeP(t, env, clis.ClaudeOld, dir, "-p", "--resume", short, "and again")
	big := claudeP(t, env, clis.Claude, dir, "-p", "TOOL_BASH please")
	claudeP(t, env, clis.Claude, dir, "-p", "--resume", big, "and again")

	// Codex: a short exec session with a tool call, and a long one.
	codexRun := func(args ...string) string {
		before := map[string]bool{}
		for _, p := range env.CodexRollouts() {
			before[p] = true
		}
		res := env.Codex(context.Background(), clis.Codex, dir, append(append([]string{"exec"}, codexExecFlags...), args...)...)
		if res.ExitCode != 0 {
			t.Fatalf("codex %v: exit %d: %s", args[:1], res.ExitCode, res.Stderr)
		}
		for _, p := range env.CodexRollouts() {
			if !before[p] {
				id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
				return id[len(id)-36:]
			}
		}
		return ""
	}
	cshort := codexRun("TOOL_BASH please")
	cbig := codexRun(long)
	codexRun("resume", cbig, long)
	if cshort == "" || cbig == "" {
		t.Fatalf("codex threads %q %q", cshort, cbig)
	}
	keys := map[string]bool{"claude-code:" + short: false, "claude-code:" + big: true, "codex:" + cshort: false, "codex:" + cbig: true}
	for key, isBig := range keys {
		fi, err := os.Stat(sourceOf(t, env, key))
		if err != nil || (fi.Size() > 128<<10) != isBig {
			t.Fatalf("%s: %v, over 128 KiB should be %v", key, err, isBig)
		}
	}

	// The list reads short transcripts whole: their counts are show's.
	got := listCounts(t, env)
	for key, isBig := range keys {
		switch want := showCount(t, env, key); {
		case isBig && got[key] != "unknown":
			t.Errorf("%s: the list counted a transcript it does not read whole: %s", key, got[key])
		case !isBig && got[key] != want:
			t.Errorf("%s: list %s, show %s", key, got[key], want)
		}
	}
	code, out, errOut := tether(t, env, "sessions", "list")
	if code != 0 || !strings.Contains(out, "MSGS") {
		t.Errorf("table: exit %d %s\n%s", code, errOut, out)
	}

	// `sessions index` counts every transcript; the next list has all.
	if code, out, errOut := tether(t, env, "sessions", "index"); code != 0 || !strings.Contains(out, "indexed 4 sessions") {
		t.Fatalf("sessions index: exit %d %s %s", code, out, errOut)
	}
	got = listCounts(t, env)
	for key := range keys {
		if want := showCount(t, env, key); got[key] != want {
			t.Errorf("after index, %s: list %s, show %s", key, got[key], want)
		}
	}

	// A session that goes on: counted from where the count stopped.
	claudeP(t, env, clis.Claude, dir, "-p", "--resume", big, "TOOL_BASH please")
	codexRun("resume", cbig, "TOOL_BASH please")
	got = listCounts(t, env)
	for _, key := range []string{"claude-code:" + big, "codex:" + cbig} {
		if want := showCount(t, env, key); got[key] != want {
			t.Errorf("after a resume, %s: list %s, show %s", key, got[key], want)
		}
	}
}

// sourceOf is the transcript of the session key.
func sourceOf(t *testing.T, env *harness.Env, key string) string {
	t.Helper()
	code, out, errOut := tether(t, env, "sessions", "show", "--json", key)
	if code != 0 {
		t.Fatalf("show %s: exit %d %s", key, code, errOut)
	}
	var s struct{ Source string }
	json.Unmarshal([]byte(out), &s)
	return s.Source
}
