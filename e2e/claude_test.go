//go:build e2e

package e2e

// Claude Code scenarios, for both pinned versions: what the real CLI
// writes, and whether tether's identity package finds it where it looks.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

type claudeCLI struct{ version, bin string }

func claudeCLIs(t *testing.T) []claudeCLI {
	clis := harness.CLIs(t)
	return []claudeCLI{{harness.ClaudeVersion, clis.Claude}, {harness.ClaudeOldVersion, clis.ClaudeOld}}
}

// claudeTruncatesLongNames tells whether a Claude Code version cuts
// project-directory names over 200 characters (and appends a hash).
// Observed: 2.1.332 does; 2.0.77 writes the whole name, and fails with
// ENAMETOOLONG once it passes 255 bytes.
var claudeTruncatesLongNames = map[string]bool{harness.ClaudeVersion: true, harness.ClaudeOldVersion: false}

// identityMatchesUntruncatedLongNames records a known gap of
// claude.MatchesProjectDir: it expects every name over 200 characters
// to be "<200-char prefix>-<hash>", so it does not recognise the
// untruncated names 2.0.77 writes (FindProjectDirs still finds those
// sessions through their recorded cwd). Flip it when identity learns them;
// the long-path scenario fails either way the moment reality and this
// flag disagree.
const identityMatchesUntruncatedLongNames = true

// claudeChainTypes are the record types that form the conversation chain
// and must carry uuid, sessionId and cwd.
var claudeChainTypes = map[string]bool{"user": true, "assistant": true, "system": true, "attachment": true, "progress": true}

// claudeKnownTypes are the other record types seen so far; anything else is
// logged (tolerated) so that new kinds show up in the test output.
var claudeKnownTypes = map[string]bool{
	"queue-operation": true, "summary": true, "custom-title": true, "ai-title": true, "last-prompt": true,
	"agent-name": true, "tag": true, "mode": true, "permission-mode": true, "file-history-snapshot": true,
	"atis-latch": true, "api-request-shape": true, "api-request-blob": true, "api-request": true,
	"tools-used": true, "cost-state": true, "pr-link": true, "content-replacement": true,
}

// encodeAll is Claude Code's project-directory encoding without the
// 200-character cut: every UTF-16 code unit outside [A-Za-z0-9] is "-".
func encodeAll(path string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(path)) {
		if u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b.WriteByte(byte(u))
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// stringHash36 is base 36 of Java's String.hashCode of s (over UTF-16
// code units), as Math.abs of the signed value and as the unsigned value.
func stringHash36(s string) []string {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return []string{strconv.FormatInt(abs, 36), strconv.FormatUint(uint64(uint32(h)), 36)}
}

var hashSuffixRe = regexp.MustCompile(`^-[a-z0-9]+$`)

// claudeProjectDir finds the project directory a version used for a
// session started in cwd, checks its name against what tether predicts,
// and returns its path.
func claudeProjectDir(t *testing.T, env *harness.Env, version, cwd string) string {
	t.Helper()
	projects := filepath.Join(env.ClaudeConfigDir, "projects")
	name, long := claude.ProjectDirName(cwd)
	if !long {
		dir := filepath.Join(projects, name)
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("claude %s: no project directory %s for cwd %q (claude.ProjectDirName); projects hold %v", version, dir, cwd, listDir(projects))
		}
		if !claude.MatchesProjectDir(name, cwd) {
			t.Errorf("claude.MatchesProjectDir(%q, %q) = false", name, cwd)
		}
		return dir
	}
	name = name[:200] // the prefix every build shares
	var found []string
	for _, n := range listDir(projects) {
		if strings.HasPrefix(n, name) {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		t.Fatalf("claude %s: want one project directory starting with the 200-char prefix %q, have %v", version, name, listDir(projects))
	}
	real := found[0]
	if claudeTruncatesLongNames[version] {
		if len(real) <= len(name) || !hashSuffixRe.MatchString(real[len(name):]) {
			t.Fatalf("claude %s: long project directory %q is not the 200-char prefix + \"-\" + hash", version, real)
		}
		t.Logf("claude %s: long cwd (%d chars) -> %q: 200-char prefix + %q", version, len(cwd), real[:20]+"…", real[len(name):])
		// Observed: the hash is base 36 of the 31-multiplier string hash
		// (Java's String.hashCode) over the cwd's UTF-16 code units. Only
		// positive hashes were seen, so both ways of making a negative
		// one positive are accepted.
		if h := real[len(name)+1:]; !slices.Contains(stringHash36(cwd), h) {
			t.Errorf("claude %s: long project directory hash %q is not base36(String.hashCode(cwd)) %v", version, h, stringHash36(cwd))
		}
		if !claude.MatchesProjectDir(real, cwd) {
			t.Errorf("claude.MatchesProjectDir(%q, %q) = false for claude %s's long name", real, cwd, version)
		}
		if predicted, _ := claude.ProjectDirName(cwd); predicted != real {
			t.Errorf("claude %s: claude.ProjectDirName predicts %q, the CLI wrote %q", version, predicted, real)
		}
	} else {
		if real != encodeAll(cwd) {
			t.Fatalf("claude %s: long project directory %q, want the whole encoded cwd %q", version, real, encodeAll(cwd))
		}
		t.Logf("claude %s: long cwd (%d chars) -> untruncated %d-char directory name", version, len(cwd), len(real))
		if got := claude.MatchesProjectDir(real, cwd); got != identityMatchesUntruncatedLongNames {
			t.Errorf("claude.MatchesProjectDir(untruncated %d-char name, cwd) = %v, the test expects %v: update identityMatchesUntruncatedLongNames", len(real), got, identityMatchesUntruncatedLongNames)
		}
	}
	return filepath.Join(projects, real)
}

func listDir(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// claudeTranscriptPath is where the session's transcript is for a short cwd.
func claudeTranscriptPath(env *harness.Env, cwd, sid string) string {
	name, _ := claude.ProjectDirName(cwd)
	return filepath.Join(env.ClaudeConfigDir, "projects", name, sid+".jsonl")
}

// sessionsIn lists the session ids in the project directory of cwd
// whose transcripts are not empty, and those that are (2.0.77 leaves an
// empty transcript under a fresh id behind on every --resume run that does
// not fork).
func sessionsIn(t *testing.T, env *harness.Env, cwd string) (ids, empty []string) {
	t.Helper()
	name, _ := claude.ProjectDirName(cwd)
	dir := filepath.Join(env.ClaudeConfigDir, "projects", name)
	for _, f := range listDir(dir) {
		// 2.0.x keeps its subagent (Warmup) transcripts beside the
		// sessions as agent-<id>.jsonl.
		if !strings.HasSuffix(f, ".jsonl") || strings.HasPrefix(f, "agent-") {
			continue
		}
		id := strings.TrimSuffix(f, ".jsonl")
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil && fi.Size() == 0 {
			empty = append(empty, id)
		} else {
			ids = append(ids, id)
		}
	}
	return ids, empty
}

// wantEmptyLeftovers is how many empty transcripts a version leaves after
// n --resume runs without --fork-session (with it, the fresh id becomes the
// fork's).
func wantEmptyLeftovers(version string, n int) int {
	if version == harness.ClaudeOldVersion {
		return n
	}
	return 0
}

// rec is one parsed transcript line.
type rec struct {
	line int
	kind string
	uuid string
	// text is the visible text: a user's prompt and tool results, an
	// assistant's text blocks and tool_use names.
	text string
	m    map[string]any
}

// checkClaudeTranscript checks the transcript of sid started in cwd: it
// is in the project directory tether predicts, every line is JSON, every
// chain record carries uuid, this sessionId, the physical cwd and the
// CLI version, and identity finds the session from cwd (either spelling).
// Records copied from a parent session may carry the parent's id, passed
// as alsoIDs.
func checkClaudeTranscript(t *testing.T, env *harness.Env, version, cwd, sid string, alsoIDs ...string) []rec {
	t.Helper()
	physical, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		t.Fatal(err)
	}
	// The CLI files the session under the directory it records as cwd:
	// the physical path (see the symlink scenario).
	dir := claudeProjectDir(t, env, version, physical)
	path := filepath.Join(dir, sid+".jsonl")
	recs := parseTranscript(t, path, version, physical, sid, alsoIDs...)
	if got := claude.RecordedCwd(path); got != physical {
		t.Errorf("claude.RecordedCwd(%s) = %q, want %q", path, got, physical)
	}
	for _, spelling := range []string{cwd, physical} {
		pds, err := claude.FindProjectDirs(filepath.Join(env.ClaudeConfigDir, "projects"), identity.Resolve(spelling))
		if err != nil {
			t.Fatalf("claude.FindProjectDirs: %v", err)
		}
		var where []string
		for _, pd := range pds {
			for _, s := range pd.Sessions {
				if s == sid {
					where = append(where, pd.Name+" ("+pd.Match+")")
				}
			}
		}
		if len(where) != 1 {
			t.Errorf("claude.FindProjectDirs(Resolve(%q)) finds session %s in %v, want exactly one directory (%s); dirs %+v", spelling, sid, where, filepath.Base(dir), pds)
		}
	}
	t.Logf("claude %s: %s: %d records, cwd %q, found by identity", version, path, len(recs), physical)
	return recs
}

// parseTranscript reads a transcript and fails on anything tether would
// not expect, naming the file and line.
func parseTranscript(t *testing.T, path, version, wantCwd, sid string, alsoIDs ...string) []rec {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("transcript %s: %v", path, err)
	}
	var out []rec
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("%s line %d: not JSON: %v", path, n, err)
			continue
		}
		r := rec{line: n, m: m}
		r.kind, _ = m["type"].(string)
		r.uuid, _ = m["uuid"].(string)
		where := fmt.Sprintf("%s line %d (%s record %s)", path, n, r.kind, r.uuid)
		switch {
		case r.kind == "":
			t.Errorf("%s: record without a type: %.200s", where, sc.Bytes())
		case claudeChainTypes[r.kind]:
			if r.uuid == "" {
				t.Errorf("%s: chain record without uuid", where)
			}
			if _, ok := m["parentUuid"]; !ok {
				t.Errorf("%s: chain record without parentUuid", where)
			}
			if got, _ := m["sessionId"].(string); got != sid && !slices.Contains(alsoIDs, got) {
				t.Errorf("%s: sessionId %q, want %q (or %v)", where, got, sid, alsoIDs)
			}
			if got, _ := m["cwd"].(string); got != wantCwd {
				t.Errorf("%s: cwd %q, want %q", where, got, wantCwd)
			}
			if got, _ := m["version"].(string); got != version {
				t.Errorf("%s: version %q, want %q", where, got, version)
			}
		case !claudeKnownTypes[r.kind]:
			t.Logf("%s: record type %q not seen before (tolerated)", where, r.kind)
		}
		r.text = recordText(m)
		out = append(out, r)
	}
	if len(out) == 0 {
		t.Errorf("transcript %s is empty", path)
	}
	return out
}

func recordText(m map[string]any) string {
	msg, _ := m["message"].(map[string]any)
	switch c := msg["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			bm, _ := b.(map[string]any)
			switch bm["type"] {
			case "text":
				parts = append(parts, fmt.Sprint(bm["text"]))
			case "tool_use":
				parts = append(parts, "tool_use:"+fmt.Sprint(bm["name"]))
			case "tool_result":
				switch rc := bm["content"].(type) {
				case string:
					parts = append(parts, rc)
				default:
					b, _ := json.Marshal(rc)
					parts = append(parts, string(b))
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// findRec returns the first record of a kind whose text contains s.
func findRec(recs []rec, kind, s string) (rec, bool) {
	for _, r := range recs {
		if r.kind == kind && strings.Contains(r.text, s) {
			return r, true
		}
	}
	return rec{}, false
}

// claudeHookEvents are the hook events installed per version (2.0.x
// ignores every hook when settings.json names an event it does not know).
func claudeHookEvents(version string) []string {
	ev := []string{"SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}
	if version != harness.ClaudeOldVersion {
		ev = append(ev, "StopFailure")
	}
	return ev
}

// installHookRecorder writes settings.json hooks that append each payload
// to $HOME/hook-payloads.jsonl and returns that file's path.
func installClaudeHookRecorder(t *testing.T, env *harness.Env, version string) string {
	t.Helper()
	out := filepath.Join(env.Home, "hook-payloads.jsonl")
	// SessionEnd may leave stdin open: read it with a deadline.
	// SessionEnd may not close stdin (timeout); hooks can run concurrently
	// (one locked write per payload, so lines never interleave).
	cmd := `t=$(mktemp); timeout 5 cat > "$t"; { flock 9; cat "$t" >> "$HOME/hook-payloads.jsonl"; echo >> "$HOME/hook-payloads.jsonl"; } 9>>"$HOME/hook-payloads.lock"; rm -f "$t"`
	hooks := map[string]any{}
	for _, ev := range claudeHookEvents(version) {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 10}}}}
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err := os.WriteFile(filepath.Join(env.ClaudeConfigDir, "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("installed hook recorder for %v in %s/settings.json", claudeHookEvents(version), env.ClaudeConfigDir)
	return out
}

// hookPayloads reads the recorded payloads.
func hookPayloads(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no hook payloads: %v", err)
	}
	var out []map[string]any
	for n, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("%s line %d: hook payload is not JSON: %v", path, n+1, err)
			continue
		}
		out = append(out, m)
	}
	return out
}

func TestClaude(t *testing.T) {
	t.Parallel()
	for _, c := range claudeCLIs(t) {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			testClaudeCwds(t, c)
			t.Run("tools-resume-fork", func(t *testing.T) { t.Parallel(); testClaudeToolsResumeFork(t, c) })
			t.Run("missing-id", func(t *testing.T) { t.Parallel(); testClaudeMissing(t, c) })
			t.Run("prompt-too-long", func(t *testing.T) { t.Parallel(); testClaudePromptTooLong(t, c) })
		})
	}
}

// testClaudeCwds runs a one-shot session in each kind of cwd.
func testClaudeCwds(t *testing.T, c claudeCLI) {
	cases := []struct {
		name string
		// setup returns the cwd to start claude in (as a shell would
		// spell it: PWD is set to it).
		setup func(env *harness.Env) string
	}{
		{"plain", func(env *harness.Env) string { return env.ProjectDir("plain") }},
		{"symlink", func(env *harness.Env) string {
			target := env.ProjectDir("real-project")
			link := filepath.Join(env.Home, "links", "proj-link")
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
		{"punctuation", func(env *harness.Env) string { return env.ProjectDir("odd dir/My.Proj_v2 (copy) & $x") }},
		{"non-ascii", func(env *harness.Env) string { return env.ProjectDir("café-プロジェクト") }},
		{"long-path", func(env *harness.Env) string {
			// 230 characters in all, whatever the temp dir's length:
			// over 200, so 2.1.332 cuts it, and under 255, the file
			// name limit 2.0.77 runs into because it does not. The
			// 201st character is alphanumeric, so a name cut by a
			// "-"-separated hash and a whole name differ there.
			base := filepath.Join(env.Home, "src", "long-")
			pad := 230 - len(base)
			if pad < 20 {
				t.Fatalf("temp HOME %s too long for the long-path case", env.Home)
			}
			return env.ProjectDir("long-" + strings.Repeat("x", pad))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := startAPI(t)
			env := harness.NewEnv(t, api)
			cwd := tc.setup(env)
			env.Setenv("PWD", cwd)
			prompt := "hello from " + tc.name
			api.Enqueue(fakeapi.Text("Hi there."))
			res := env.Claude(context.Background(), c.bin, cwd, "-p", prompt, "--output-format", "stream-json", "--verbose")
			sid := requireClaudeOK(t, res, "Hi there.")
			recs := checkClaudeTranscript(t, env, c.version, cwd, sid)
			if _, ok := findRec(recs, "user", prompt); !ok {
				t.Errorf("transcript of %s lacks the prompt %q", sid, prompt)
			}
			if _, ok := findRec(recs, "assistant", "Hi there."); !ok {
				t.Errorf("transcript of %s lacks the reply", sid)
			}
			if tc.name == "symlink" {
				// Observed: both versions record the physical path as
				// cwd and file the session under its name, even when
				// started through the link with PWD spelling the link.
				linkName, _ := claude.ProjectDirName(cwd)
				if _, err := os.Stat(filepath.Join(env.ClaudeConfigDir, "projects", linkName)); err == nil {
					t.Errorf("claude %s also made a project directory for the symlink spelling %s", c.version, linkName)
				}
			}
		})
	}
}

func testClaudeToolsResumeFork(t *testing.T, c claudeCLI) {
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	hooksFile := installClaudeHookRecorder(t, env, c.version)
	cwd := env.ProjectDir("project")
	notes := filepath.Join(cwd, "notes.txt")
	if err := os.WriteFile(notes, []byte("the secret word is pineapple\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose"}

	// 1. One turn with a Bash and a Read call.
	api.Enqueue(fakeapi.Bash("echo hi").Then(fakeapi.Read(notes).Then(fakeapi.Text("Both tools ran."))))
	res := env.Claude(context.Background(), c.bin, cwd, append([]string{"-p", "run the tools"}, flags...)...)
	sid := requireClaudeOK(t, res, "Both tools ran.")
	recs := checkClaudeTranscript(t, env, c.version, cwd, sid)
	for _, want := range []struct{ kind, text string }{
		{"assistant", "tool_use:Bash"}, {"assistant", "tool_use:Read"}, {"user", "hi"}, {"user", "pineapple"},
	} {
		if _, ok := findRec(recs, want.kind, want.text); !ok {
			t.Errorf("transcript of %s: no %s record with %q", sid, want.kind, want.text)
		}
	}
	path := claudeTranscriptPath(env, cwd, sid)
	before, _ := os.ReadFile(path)

	// 2. -p --resume appends to the same file under the same id.
	api.Enqueue(fakeapi.Text("Resumed."))
	res = env.Claude(context.Background(), c.bin, cwd, append([]string{"-p", "--resume", sid, "second turn"}, flags...)...)
	if got := requireClaudeOK(t, res, "Resumed."); got != sid {
		t.Errorf("-p --resume changed the session id: %s -> %s", sid, got)
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, before) || len(after) == len(before) {
		t.Errorf("-p --resume did not append to %s (%d -> %d bytes, prefix kept %v)", path, len(before), len(after), bytes.HasPrefix(after, before))
	}
	recs = checkClaudeTranscript(t, env, c.version, cwd, sid)
	if _, ok := findRec(recs, "user", "second turn"); !ok {
		t.Errorf("resumed transcript %s lacks the second prompt", path)
	}
	if ids, empty := sessionsIn(t, env, cwd); len(ids) != 1 || len(empty) != wantEmptyLeftovers(c.version, 1) {
		t.Errorf("claude %s: after -p --resume the project directory holds sessions %v and empty transcripts %v, want 1 and %d", c.version, ids, empty, wantEmptyLeftovers(c.version, 1))
	}

	// 3. --fork-session: a new id and file, with the old history sent.
	api.Enqueue(fakeapi.Text("Forked."))
	res = env.Claude(context.Background(), c.bin, cwd, append([]string{"-p", "--resume", sid, "--fork-session", "forked turn"}, flags...)...)
	fork := requireClaudeOK(t, res, "Forked.")
	if fork == sid {
		t.Fatalf("--fork-session kept the id %s", sid)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, after) {
		t.Errorf("--fork-session changed the original transcript %s", path)
	}
	// Observed: 2.0.77 copies the parent's human-prompt records into the
	// fork with the parent's sessionId (everything else gets the fork's);
	// 2.1.332 rewrites them all.
	var parentIDs []string
	if c.version == harness.ClaudeOldVersion {
		parentIDs = []string{sid}
	}
	frecs := checkClaudeTranscript(t, env, c.version, cwd, fork, parentIDs...)
	if _, ok := findRec(frecs, "user", "forked turn"); !ok {
		t.Errorf("fork transcript %s lacks the new prompt", claudeTranscriptPath(env, cwd, fork))
	}
	last, _ := api.LastModelRequest()
	sent := strings.Join(last.UserTexts(), "\n")
	for _, want := range []string{"run the tools", "second turn", "forked turn"} {
		if !strings.Contains(sent, want) {
			t.Errorf("the fork's request lacks %q from the history; user texts sent: %q", want, last.UserTexts())
		}
	}
	if uses := last.AllToolUses(); len(uses) != 2 {
		t.Errorf("the fork's request carries %d tool uses, want the 2 of the original", len(uses))
	}
	if ids, empty := sessionsIn(t, env, cwd); len(ids) != 2 || len(empty) != wantEmptyLeftovers(c.version, 1) {
		t.Errorf("claude %s: after the fork the project directory holds sessions %v and empty transcripts %v, want 2 and %d", c.version, ids, empty, wantEmptyLeftovers(c.version, 1))
	}

	// Hooks fired for each run, with this session's id and transcript.
	payloads := hookPayloads(t, hooksFile)
	seen := map[string]int{}
	for _, p := range payloads {
		ev, _ := p["hook_event_name"].(string)
		seen[ev]++
		psid, _ := p["session_id"].(string)
		if psid != sid && psid != fork {
			t.Errorf("hook %s: session_id %q is neither %s nor the fork %s", ev, psid, sid, fork)
		}
		if tp, _ := p["transcript_path"].(string); tp != claudeTranscriptPath(env, cwd, psid) {
			t.Errorf("hook %s: transcript_path %q, want %q", ev, tp, claudeTranscriptPath(env, cwd, psid))
		}
		if got, _ := p["cwd"].(string); got != cwd {
			t.Errorf("hook %s: cwd %q, want %q", ev, got, cwd)
		}
	}
	for ev, min := range map[string]int{"SessionStart": 3, "UserPromptSubmit": 3, "PreToolUse": 2, "PostToolUse": 2, "Stop": 3, "SessionEnd": 3} {
		if seen[ev] < min {
			t.Errorf("hook %s fired %d times, want at least %d (all: %v)", ev, seen[ev], min, seen)
		}
	}
	t.Logf("hooks fired: %v", seen)

	goldenFile(t, env, claudeGolden(c.version, "tool-session.jsonl"), path)
	goldenFile(t, env, claudeGolden(c.version, "fork.jsonl"), claudeTranscriptPath(env, cwd, fork))
	goldenFile(t, env, claudeGolden(c.version, "hook-payloads.jsonl"), hooksFile)
}

func testClaudeMissing(t *testing.T, c claudeCLI) {
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	cwd := env.ProjectDir("project")
	missing := "0b9f1f5e-3c4d-4e8a-9f00-123456789abc"
	res := env.Claude(context.Background(), c.bin, cwd, "-p", "--resume", missing, "hello")
	if res.ExitCode != 1 {
		t.Errorf("resume of a missing id exited %d, want 1", res.ExitCode)
	}
	if want := "No conversation found with session ID: " + missing; !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr %q lacks %q", res.Stderr, want)
	}
	// Observed: 2.0.77 leaves an empty transcript under a fresh id behind
	// (catalogs must cope with 0-byte sessions); 2.1.332 writes nothing.
	// Also observed, once in many runs (2026-12-01, load ~3): 2.0.77
	// answered the prompt in that fresh session before it reported the
	// missing id, still exiting 1 with the same message — a race inside
	// the CLI. The wrapper's fallback then asks once more; -p output of
	// the failed attempt goes to the log (issue 14 item 2).
	if c.version == "2.0.77" && strings.TrimSpace(res.Stdout) != "" {
		t.Logf("claude 2.0.77 answered in a fresh session before reporting the missing id (the CLI's race): stdout %q", res.Stdout)
		if left := env.ClaudeTranscripts(); len(left) != 1 {
			t.Errorf("claude 2.0.77 (raced): a failed resume left transcripts %v, want 1", left)
		}
		return
	}
	left := env.ClaudeTranscripts()
	wantLeft := wantEmptyLeftovers(c.version, 1)
	if len(left) != wantLeft {
		t.Errorf("claude %s: a failed resume left transcripts %v, want %d", c.version, left, wantLeft)
	}
	for _, f := range left {
		if fi, err := os.Stat(f); err != nil || fi.Size() != 0 {
			data, _ := os.ReadFile(f)
			t.Errorf("claude %s: a failed resume left %s with content:\n%.2000s", c.version, f, data)
		}
		if strings.TrimSuffix(filepath.Base(f), ".jsonl") == missing || filepath.Dir(f) != filepath.Dir(claudeTranscriptPath(env, cwd, "x")) {
			t.Errorf("claude %s: unexpected leftover %s", c.version, f)
		}
	}
	if n := len(api.ModelRequests()); n != 0 {
		t.Errorf("a failed resume made %d model requests", n)
	}
}

func testClaudePromptTooLong(t *testing.T, c claudeCLI) {
	// StopFailure is fire-and-forget in -p mode: on a loaded machine the
	// CLI may exit before the hook runs. The scenario is run again (up to
	// three times) until the hook fired, so its payload is still checked.
	var env *harness.Env
	var hooksFile, cwd string
	var res harness.Result
	for attempt := 1; ; attempt++ {
		api := startAPI(t)
		env = harness.NewEnv(t, api)
		hooksFile = installClaudeHookRecorder(t, env, c.version)
		cwd = env.ProjectDir("project")
		// 2.0.77 retries a prompt-too-long once with a lower max_tokens.
		api.Enqueue(fakeapi.PromptTooLong(250000, 200000), fakeapi.PromptTooLong(250000, 200000))
		res = env.Claude(context.Background(), c.bin, cwd, "-p", "a prompt that overflows")
		if c.version == harness.ClaudeOldVersion || stopFailureRecorded(t, hooksFile) || attempt == 3 {
			break
		}
		t.Logf("attempt %d: the CLI exited before its StopFailure hook ran; running the scenario again", attempt)
	}
	if res.ExitCode != 1 {
		t.Errorf("prompt too long: exit %d, want 1", res.ExitCode)
	}
	if !strings.Contains(res.Stdout, "Prompt is too long") {
		t.Errorf("prompt too long: stdout %q lacks \"Prompt is too long\"", res.Stdout)
	}
	if strings.TrimSpace(res.Stderr) != "" {
		t.Logf("prompt too long: stderr is not empty: %q", res.Stderr)
	}
	sids, empty := sessionsIn(t, env, cwd)
	if len(sids) != 1 || len(empty) != 0 {
		t.Fatalf("prompt too long: want one transcript, have %v", env.ClaudeTranscripts())
	}
	recs := checkClaudeTranscript(t, env, c.version, cwd, sids[0])
	var synthetic bool
	for _, r := range recs {
		msg, _ := r.m["message"].(map[string]any)
		if r.kind == "assistant" && msg["model"] == "<synthetic>" && r.m["isApiErrorMessage"] == true && strings.Contains(r.text, "Prompt is too long") {
			synthetic = true
			if st, _ := r.m["apiErrorStatus"].(float64); st != 0 && st != 400 {
				t.Errorf("%s line %d: apiErrorStatus %v, want 400", claudeTranscriptPath(env, cwd, sids[0]), r.line, r.m["apiErrorStatus"])
			}
		}
	}
	if !synthetic {
		t.Errorf("transcript %s has no synthetic API-error record (model <synthetic>, isApiErrorMessage, \"Prompt is too long\")", claudeTranscriptPath(env, cwd, sids[0]))
	}
	if c.version != harness.ClaudeOldVersion {
		if !stopFailureRecorded(t, hooksFile) {
			t.Errorf("claude %s: no StopFailure hook with error invalid_request and the 400 body in %s", c.version, hooksFile)
		}
	}
	goldenFile(t, env, claudeGolden(c.version, "prompt-too-long.jsonl"), claudeTranscriptPath(env, cwd, sids[0]))
	goldenFile(t, env, claudeGolden(c.version, "prompt-too-long-hooks.jsonl"), hooksFile)
}

// stopFailureRecorded reports whether the hook recorder saw Claude Code's
// StopFailure for a prompt too long, with its 400 body.
func stopFailureRecorded(t *testing.T, hooksFile string) bool {
	t.Helper()
	for _, p := range hookPayloads(t, hooksFile) {
		if p["hook_event_name"] == "StopFailure" && p["error"] == "invalid_request" && strings.Contains(fmt.Sprint(p["error_details"]), "prompt is too long") {
			return true
		}
	}
	return false
}
