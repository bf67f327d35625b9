//go:build e2e

package e2e

// Golden samples: real output of the pinned CLIs, sanitized, committed as
// testdata/<agent>-<version>/golden-* (testdata/claude-code-2.1.332/,
// testdata/codex-0.171.0/) so that unit tests of parsers read what the CLIs
// really write. The scenarios that produce them call golden(); with -update they
// rewrite the files (scripts/golden.sh), without it they check that the
// fresh output still has the SHAPE of the committed sample (record kinds and
// their keys), so a format change in a CLI version is reported by name.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden-* files under testdata/ from the real CLIs")

// Placeholders of the sanitized samples.
const (
	exampleHome    = "/home/example"
	exampleProject = "/home/example/src/project"
	exampleAPI     = "http://127.0.0.1:PORT"
	// maxGoldenString is where long vendor strings (system prompt
	// snapshots, tool schemas, signatures) are cut.
	maxGoldenString = 200
)

// sanitizer rewrites one scenario's output into a deterministic, personal-
// data-free sample: the temp HOME becomes /home/example (so its project
// becomes /home/example/src/project), the fake API's port PORT, UUIDs and
// timestamps are renumbered in order of appearance, timing numbers are
// zeroed and long strings cut.
type sanitizer struct {
	repl  *strings.Replacer
	uuids map[string]string
	times int
	// seen maps a class and an original value to its replacement.
	seen map[string]map[string]string
}

// renumber gives each distinct value of a class the next number, in order
// of appearance, formatted with format.
func (s *sanitizer) renumber(class, v, format string) string {
	m := s.seen[class]
	if m == nil {
		m = map[string]string{}
		s.seen[class] = m
	}
	if r, ok := m[v]; ok {
		return r
	}
	r := fmt.Sprintf(format, len(m)+1)
	m[v] = r
	return r
}

func newSanitizer(env *harness.Env) *sanitizer { return newSanitizerFor(env.Home, env.API.URL()) }

func newSanitizerFor(home, apiURL string) *sanitizer {
	encHome, _ := claude.ProjectDirName(home)
	encExample, _ := claude.ProjectDirName(exampleHome)
	return &sanitizer{
		repl: strings.NewReplacer(
			home, exampleHome,
			encHome, encExample,
			apiURL, exampleAPI,
			strings.TrimPrefix(apiURL, "http://"), strings.TrimPrefix(exampleAPI, "http://"),
		),
		uuids: map[string]string{},
		seen:  map[string]map[string]string{},
	}
}

var (
	uuidRe    = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	isoTimeRe = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?`)
	// Codex rollout names and day directories carry the local start time.
	rolloutTimeRe = regexp.MustCompile(`rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}`)
	dayDirRe      = regexp.MustCompile(`sessions/\d{4}/\d{2}/\d{2}/`)
	// Content hashes (Claude's shapeHash, requestDigest, blob hashes)
	// cover ids and times, so they change on every run.
	sha256Re = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	// The fake's ids count requests, side requests included, whose
	// number varies.
	fakeIDRe = regexp.MustCompile(`\b(toolu|msg|req|call|resp|fc)_fake_?\d+\b`)
	// Bare dates (Codex's current_date, environment context).
	dateRe = regexp.MustCompile(`\b20\d{2}-\d{2}-\d{2}\b`)
	// Codex's shell tool output carries a random chunk id and a timing.
	chunkIDRe  = regexp.MustCompile(`Chunk ID: [0-9a-f]+`)
	wallTimeRe = regexp.MustCompile(`Wall time: [0-9.]+ seconds`)
	// Numbers that measure time or processes differ on every run.
	volatileKeyRe = regexp.MustCompile(`(?i)(^slug$|Time$|^seconds_|duration|elapsed|latency|_time$|^nanos$|_ms$|Ms$|pid$|process_id|procStart|_at$|[a-z]At$|timestamp|ttft|_secs?$|^cost|costUSD|^total_cost|wall)`)
	digitsRe      = regexp.MustCompile(`^[0-9]+$`)
)

func (s *sanitizer) str(v string) string {
	v = s.repl.Replace(v)
	v = rolloutTimeRe.ReplaceAllString(v, "rollout-2026-01-01T00-00-00")
	v = dayDirRe.ReplaceAllString(v, "sessions/2026/01/01/")
	v = chunkIDRe.ReplaceAllString(v, "Chunk ID: 000000")
	v = wallTimeRe.ReplaceAllString(v, "Wall time: 0.0000 seconds")
	v = uuidRe.ReplaceAllStringFunc(v, func(u string) string {
		if r, ok := s.uuids[u]; ok {
			return r
		}
		r := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(s.uuids)+1)
		s.uuids[u] = r
		return r
	})
	// Every timestamp gets the next second: order is kept, and equal
	// times (which depend on the machine's speed) do not change the
	// numbering.
	v = isoTimeRe.ReplaceAllStringFunc(v, func(string) string {
		n := s.times
		s.times++
		return fmt.Sprintf("2026-01-01T%02d:%02d:%02d.000Z", n/3600%24, n/60%60, n%60)
	})
	v = dateRe.ReplaceAllString(v, "2026-01-01")
	v = sha256Re.ReplaceAllStringFunc(v, func(h string) string { return s.renumber("sha", h, "%064d") })
	v = fakeIDRe.ReplaceAllStringFunc(v, func(id string) string {
		prefix := id[:strings.Index(id, "_")]
		return s.renumber(prefix, id, prefix+"_fake%06d")
	})
	if utf8.RuneCountInString(v) > maxGoldenString {
		r := []rune(v)
		v = string(r[:maxGoldenString]) + fmt.Sprintf("…[cut %d chars]", len(r)-maxGoldenString)
	}
	return v
}

// jsonLine rewrites one JSON document keeping its key order.
func (s *sanitizer) jsonLine(line []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var out bytes.Buffer
	if err := s.copyValue(dec, &out, ""); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return out.Bytes(), nil
}

func (s *sanitizer) copyValue(dec *json.Decoder, out *bytes.Buffer, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		closing := map[json.Delim]byte{'{': '}', '[': ']'}[t]
		out.WriteByte(byte(t))
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			k := key
			if t == '{' {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ = kt.(string)
				writeJSONString(out, s.str(k))
				out.WriteByte(':')
			}
			if err := s.copyValue(dec, out, k); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte(closing)
	case string:
		if volatileKeyRe.MatchString(key) && digitsRe.MatchString(t) {
			t = "0"
		}
		if key == "slug" {
			// 2.0.x names sessions with random words.
			t = "example-session-slug"
		}
		writeJSONString(out, s.str(t))
	case json.Number:
		if volatileKeyRe.MatchString(key) {
			out.WriteString("0")
		} else {
			out.WriteString(t.String())
		}
	case bool:
		fmt.Fprint(out, t)
	case nil:
		out.WriteString("null")
	}
	return nil
}

func writeJSONString(out *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out.Write(bytes.TrimRight(b.Bytes(), "\n"))
}

// jsonl sanitizes a JSONL file's content; a line that is not JSON fails
// the test, naming the source and line.
func (s *sanitizer) jsonl(t *testing.T, source string, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		b, err := s.jsonLine(line)
		if err != nil {
			t.Errorf("%s line %d: not JSON (%v): %.200s", source, n, err, line)
			continue
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// claudeGolden and codexGolden name the capture of kind in its agent and
// version's tree, as testutil.Testdata takes it:
// claude-code-2.1.332/golden-tool-session.jsonl.
func claudeGolden(version, kind string) string { return "claude-code-" + version + "/golden-" + kind }

func codexGolden(kind string) string { return "codex-" + harness.CodexVersion + "/golden-" + kind }

// golden writes (with -update) or shape-checks the sanitized JSONL sample
// name (claudeGolden, codexGolden), produced from source (a file path, for messages).
func golden(t *testing.T, env *harness.Env, name, source string, data []byte) {
	t.Helper()
	sample := newSanitizer(env).jsonl(t, source, data)
	path := testutil.Testdata(t, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, sample, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("golden: wrote %s (%d bytes, from %s)", path, len(sample), source)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden %s: %v; regenerate with scripts/golden.sh", path, err)
		return
	}
	if diffs := compareShapes(shapeOf(want), shapeOf(sample)); len(diffs) > 0 {
		t.Errorf("golden %s: the real CLI's output (%s) changed shape; if the new format is expected, handle it in the parsers and refresh with scripts/golden.sh:\n  %s",
			path, source, strings.Join(diffs, "\n  "))
	} else {
		t.Logf("golden: %s has the shape of %s", source, path)
	}
}

// goldenFile is golden for a file on disk.
func goldenFile(t *testing.T, env *harness.Env, name, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden %s: %v", name, err)
		return
	}
	golden(t, env, name, path, data)
}

// shape maps each record kind of a JSONL sample to the set of its keys.
type shape map[string]map[string]bool

// recordKind names a line: its type (and subtype, payload type, hook
// event, content block types), so that records of one kind are compared
// with each other.
func recordKind(m map[string]any) string {
	parts := []string{}
	for _, k := range []string{"_table", "type", "subtype", "hook_event_name"} {
		if v, ok := m[k].(string); ok {
			parts = append(parts, k+"="+v)
		}
	}
	// OpenCode's rows: a message's role, a part's type.
	if d, ok := m["data"].(map[string]any); ok {
		for _, k := range []string{"role", "type"} {
			if v, ok := d[k].(string); ok {
				parts = append(parts, "data."+k+"="+v)
			}
		}
	}
	if p, ok := m["payload"].(map[string]any); ok {
		if v, ok := p["type"].(string); ok {
			parts = append(parts, "payload.type="+v)
		}
	}
	if msg, ok := m["message"].(map[string]any); ok {
		switch c := msg["content"].(type) {
		case string:
			parts = append(parts, "content=string")
		case []any:
			var types []string
			for _, b := range c {
				if bm, ok := b.(map[string]any); ok {
					types = append(types, fmt.Sprint(bm["type"]))
				}
			}
			parts = append(parts, "content=["+strings.Join(types, ",")+"]")
		}
		if msg["model"] == "<synthetic>" {
			parts = append(parts, "synthetic")
		}
	}
	if len(parts) == 0 {
		return "(untyped)"
	}
	return strings.Join(parts, " ")
}

func shapeOf(data []byte) shape {
	sh := shape{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		kind := recordKind(m)
		keys := sh[kind]
		if keys == nil {
			keys = map[string]bool{}
			sh[kind] = keys
		}
		for k, v := range m {
			keys[k] = true
			// One level down where the interesting fields live.
			if k == "message" || k == "payload" || k == "toolUseResult" {
				if sub, ok := v.(map[string]any); ok {
					for sk := range sub {
						keys[k+"."+sk] = true
					}
				}
			}
		}
	}
	return sh
}

// compareShapes lists the differences between the committed and the fresh
// shape, one line each.
func compareShapes(want, got shape) []string {
	var out []string
	for _, kind := range sortedKeys(want) {
		g, ok := got[kind]
		if !ok {
			out = append(out, fmt.Sprintf("record kind %q is gone", kind))
			continue
		}
		var missing, added []string
		for k := range want[kind] {
			if !g[k] {
				missing = append(missing, k)
			}
		}
		for k := range g {
			if !want[kind][k] {
				added = append(added, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(added)
		if len(missing) > 0 {
			out = append(out, fmt.Sprintf("record kind %q lost keys %v", kind, missing))
		}
		if len(added) > 0 {
			out = append(out, fmt.Sprintf("record kind %q has new keys %v", kind, added))
		}
	}
	for _, kind := range sortedKeys(got) {
		if _, ok := want[kind]; !ok {
			out = append(out, fmt.Sprintf("new record kind %q (keys %v)", kind, sortedKeys(got[kind])))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
