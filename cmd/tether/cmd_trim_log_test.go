package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/wrap"
)

// bigTranscript is a Claude session at tokens of a 200k window, with one
// large tool result for an automatic trim to drop.
func bigTranscript(id, cwd string, resultBytes, tokens int) string {
	env := func(uuid, parent, typ string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`"uuid":%q,"parentUuid":%s,"type":%q,"sessionId":%q,"cwd":%q,"timestamp":"2026-11-30T10:00:00Z","isSidechain":false,"version":"2.1.332","userType":"external"`, uuid, p, typ, id, cwd)
	}
	var b strings.Builder
	b.WriteString("{" + env("u1", "", "user") + `,"message":{"role":"user","content":"read the file"}}` + "\n")
	b.WriteString("{" + env("a1", "u1", "assistant") + `,"message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/home/example/big.txt"}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}}` + "\n")
	b.WriteString("{" + env("u2", "a1", "user") + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"` + strings.Repeat("x", resultBytes) + `"}]}}` + "\n")
	b.WriteString("{" + env("a2", "u2", "assistant") + fmt.Sprintf(`,"message":{"id":"msg_2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}}`, tokens) + "\n")
	return b.String()
}

// `tether log --event trim` lists the wrapper's automatic trims and
// `tether trim`'s manual ones alike: one event name, a source field, one
// set of fields.
func TestLogEventTrimListsAutomaticAndManualTrims(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "src", "proj")
	os.MkdirAll(dir, 0o755)
	fake := filepath.Join(ta.home, "bin", "claude")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755)
	ta.env["TETHER_CLAUDE_BIN"] = fake
	ta.exec = func(wrap.Child) (int, error) { return 0, nil }

	const auto = "aaaa1111-07d6-4b50-9048-40676f77f965"
	name, _ := claude.ProjectDirName(dir)
	pd := filepath.Join(ta.home, ".claude", "projects", name)
	os.MkdirAll(pd, 0o700)
	os.WriteFile(filepath.Join(pd, auto+".jsonl"), []byte(bigTranscript(auto, dir, 1<<20, 190000)), 0o600)
	if code := ta.run("run", "claude", "--resume", auto); code != 0 {
		t.Fatalf("run: exit %d %s", code, ta.err)
	}
	if !strings.Contains(ta.err.String(), "trimmed to about") {
		t.Fatalf("no automatic trim: %q", ta.err)
	}

	const manual = "d9f7843f-07d6-4b50-9048-40676f77f965"
	seedSession(t, ta, manual, dir)
	if code := ta.run("trim", "--keep", "docs", manual); code != 0 {
		t.Fatalf("trim: exit %d %s", code, ta.err)
	}

	ta.out.Reset()
	if code := ta.run("log", "--event", "trim", "--json"); code != 0 {
		t.Fatalf("log: exit %d %s", code, ta.err)
	}
	lines := strings.Split(strings.TrimSpace(ta.out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want an automatic and a manual trim, got %d records:\n%s", len(lines), ta.out)
	}
	sources := map[string]string{}
	var keys []string
	for _, l := range lines {
		r := gjson.Parse(l)
		sources[r.Get("session_id").Str] = r.Get("source").Str
		if !strings.HasSuffix(r.Get("path").Str, r.Get("session_id").Str+".jsonl") || !r.Get("changed").Bool() {
			t.Errorf("record: %s", l)
		}
		if r.Get("source").Str == "auto" && r.Get("percent").Float() < 90 {
			t.Errorf("automatic trim without the percent that set it off: %s", l)
		}
		var k []string
		r.ForEach(func(key, _ gjson.Result) bool { k = append(k, key.Str); return true })
		sort.Strings(k)
		keys = append(keys, strings.Join(k, ","))
	}
	if sources[auto] != "auto" || sources[manual] != "manual" {
		t.Errorf("sources %v", sources)
	}
	eventlog.ReadAll(state.EventLogPath(ta.Loc.StateDir), func(r eventlog.Record) {
		if err := eventlog.Check(r); err != nil {
			t.Errorf("%v: %s", err, r.Raw)
		}
	})
	if keys[0] != keys[1] {
		t.Errorf("field sets differ:\n%s\n%s", keys[0], keys[1])
	}
}
