//go:build e2e

// Full-text search through the index over sessions the real CLIs wrote:
// prompts, tool calls, phrases, prefixes, filters, a session that grows
// after it was indexed and one that is deleted.
package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
)

func TestSearchIndexRealCLIs(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("searchproj")

	bash := claudeP(t, env, clis.Claude, dir, "-p", "TOOL_BASH gnu antelope", "--allowedTools", "Bash")
	okapi := claudeP(t, env, clis.ClaudeOld, dir, "-p", "okapi only")
	res := env.Codex(context.Background(), clis.Codex, dir, append(append([]string{"exec"}, codexExecFlags...), "TOOL_BASH gnu bison")...)
	if res.ExitCode != 0 {
		t.Fatalf("codex exec: exit %d: %s", res.ExitCode, res.Stderr)
	}
	rollouts := env.CodexRollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts %v", rollouts)
	}
	codex := strings.TrimSuffix(filepath.Base(rollouts[0]), ".jsonl")
	codex = codex[len(codex)-36:]

	search := func(args ...string) []string {
		t.Helper()
		code, out, errOut := tether(t, env, append([]string{"sessions", "search", "--json"}, args...)...)
		var sr struct {
			Engine  string
			Results []struct {
				Session  struct{ Harness, ID string }
				Snippets []struct{ Field, Text string }
			}
		}
		if err := json.Unmarshal([]byte(out), &sr); err != nil || code != 0 || sr.Engine != "index" {
			t.Fatalf("search %v: exit %d engine %q %v\n%s%s", args, code, sr.Engine, err, out, errOut)
		}
		keys := []string{}
		for _, r := range sr.Results {
			keys = append(keys, r.Session.ID)
			if len(r.Snippets) == 0 {
				t.Errorf("search %v: %s has no snippet", args, r.Session.ID)
			}
		}
		slices.Sort(keys)
		return keys
	}
	sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"gnu"}, sorted(bash, codex)},
		{[]string{"GNU", "--harness", "codex"}, []string{codex}},
		{[]string{"gnu", "--cwd", dir}, sorted(bash, codex)},
		{[]string{`"gnu antelope"`}, []string{bash}},
		{[]string{`"antelope gnu"`}, []string{}},
		{[]string{"antel*"}, []string{bash}},
		{[]string{"okapi"}, []string{okapi}},
		// The command both tool calls ran (echo hi) is only in tool calls.
		{[]string{"echo"}, []string{}},
		{[]string{"--all-text", "echo"}, sorted(bash, codex)},
		{[]string{`NOT "AND" (`}, []string{}},
	} {
		if got := search(c.args...); !slices.Equal(got, c.want) {
			t.Errorf("search %v: %v, want %v", c.args, got, c.want)
		}
	}

	// A session that grows after it was indexed: its new prompt is found.
	if again := claudeP(t, env, clis.Claude, dir, "-p", "--resume", bash, "quagga appended"); again != bash {
		t.Fatalf("resume changed the id: %s", again)
	}
	if got := search("quagga"); !slices.Equal(got, []string{bash}) {
		t.Errorf("after resume: quagga %v", got)
	}
	if got := search("antelope quagga"); !slices.Equal(got, []string{bash}) {
		t.Errorf("old and new prompt together: %v", got)
	}

	// A deleted transcript leaves the index.
	for _, p := range env.ClaudeTranscripts() {
		if strings.Contains(p, okapi) {
			os.Remove(p)
		}
	}
	if got := search("okapi"); len(got) != 0 {
		t.Errorf("deleted session still found: %v", got)
	}
	idx := filepath.Join(env.Home, ".cache", "tether", "search.db")
	for _, kv := range env.Environ() {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			idx = filepath.Join(v, "tether", "search.db")
		}
	}
	if fi, err := os.Stat(idx); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("index file %s: %v %v", idx, fi, err)
	}
}
