package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

const (
	claudeNew = "d9f7843f-07d6-4b50-9048-40676f77f965"
	claudeOld = "4a3624db-9f07-42fe-a7f0-a27427d60850"
	codexID   = "01a22c1e-edbd-73b1-9ee8-1fcd43d77fc9"
)

func sample(t *testing.T, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(testutil.Testdata(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func put(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// withSessions fills the test HOME with the real samples, rewritten so
// their cwd is dir (an existing directory) when dir is set.
func withSessions(t *testing.T, ta *testApp, dir string) {
	t.Helper()
	fix := func(b []byte, from string) []byte {
		if dir == "" {
			return b
		}
		q, _ := json.Marshal(dir)
		return bytes.ReplaceAll(b, []byte(`"`+from+`"`), q)
	}
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-proj")
	put(t, filepath.Join(proj, claudeNew+".jsonl"), fix(sample(t, "claude-code-2.1.332", "sample-tool-session.jsonl"), "/home/example/src/proj"))
	put(t, filepath.Join(proj, claudeOld+".jsonl"), fix(sample(t, "claude-code-2.0.77", "sample-tool-session.jsonl"), "/home/example/src/proj"))
	put(t, filepath.Join(ta.env["CODEX_HOME"], "sessions", "2026", "11", "30", "rollout-2026-11-30T11-02-34-"+codexID+".jsonl"),
		fix(sample(t, "codex-0.171.0", "sample-rollout-tool-resume.jsonl"), "/home/example/src/codex-proj"))
}

func validate(t *testing.T, name string, out []byte) map[string]any {
	t.Helper()
	raw, err := catalog.Schema(name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	if err := c.AddResource(name+".json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsv.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("output does not match the %s schema: %v\n%s", name, err, out)
	}
	var m map[string]any
	json.Unmarshal(out, &m)
	return m
}

func TestSessionsIDResolutionExitCodes(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	// Two sessions sharing a prefix.
	other := strings.Replace(claudeNew, "d9f7843f", "d9f70000", 1)
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "p", other+".jsonl"), sample(t, "claude-code-2.0.77", "sample-tool-session.jsonl"))
	for _, c := range []struct {
		id   string
		code int
		msg  string
	}{
		{"d9f7", 2, "ambiguous"},
		{"d9", 2, "too short"},
		{"ffffffff", 3, "no such session"},
		{"codex:4a36", 3, "no such session"},
	} {
		ta.err.Reset()
		if code := ta.run("sessions", "show", c.id); code != c.code || !strings.Contains(ta.err.String(), c.msg) {
			t.Errorf("%s: exit %d %q, want %d %q", c.id, code, ta.err, c.code, c.msg)
		}
	}
	ta.err.Reset()
	ta.run("sessions", "show", "d9f7")
	if !strings.Contains(ta.err.String(), claudeNew) || !strings.Contains(ta.err.String(), other) {
		t.Errorf("ambiguous error should list candidates: %s", ta.err)
	}
}

func TestSessionsSchemaAndCache(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	for _, n := range []string{"", "list", "show", "search"} {
		ta.out.Reset()
		args := []string{"sessions", "schema"}
		if n != "" {
			args = append(args, n)
		}
		if code := ta.run(args...); code != 0 || !json.Valid(ta.out.Bytes()) {
			t.Errorf("schema %s: exit %d", n, code)
		}
	}
	if code := ta.run("sessions", "schema", "nope"); code != 2 {
		t.Errorf("unknown schema: exit %d", code)
	}
	ta.run("sessions", "--json")
	cache := filepath.Join(ta.env["XDG_CACHE_HOME"], "tether", "catalog-claude-code.gob")
	fi, err := os.Stat(cache)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache %v %v", fi, err)
	}
	ta.out.Reset()
	if code := ta.run("sessions", "cache", "clear"); code != 0 || !strings.Contains(ta.out.String(), "removed 3") { // the two catalogs and the archive's records
		t.Errorf("cache clear: %d %s", code, ta.out)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("cache still there: %v", err)
	}
}
