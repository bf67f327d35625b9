package codexsessions

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
)

const (
	metaLine = `{"timestamp":"2026-03-01T00:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w/p"}}`
	forkMeta = `{"timestamp":"2026-03-01T00:00:00.000Z","type":"session_meta","payload":{"id":"f","forked_from_id":"x","cwd":"/w/q"}}`
	ctxLine  = `{"timestamp":"2026-03-01T00:00:01.000Z","type":"turn_context","payload":{"model":"gpt-5.1-codex"}}`
)

func count(ts, info string) string {
	return `{"timestamp":"` + ts + `","type":"event_msg","payload":{"type":"token_count","info":{` + info + `}}}`
}

func countFiles(t *testing.T, home, cache string) []agent.FileUsage {
	t.Helper()
	r := New(home).Sessions(agent.ReaderConfig{CachePath: cache}).(*Reader)
	files, diags, err := r.CountUsage(context.Background())
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	return files
}

func writeRollout(t *testing.T, p string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Each count is its last_token_usage, else its total less the previous
// total; cached input is held to the input; a count of zeros is not a
// record; the model is the turn's; a broken line is skipped.
func TestCodexCountsDeltas(t *testing.T) {
	home := t.TempDir()
	writeRollout(t, filepath.Join(home, "sessions", "2026", "03", "01", "rollout-a.jsonl"), metaLine, ctxLine,
		count("2026-03-01T00:00:02.000Z", `"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10,"reasoning_output_tokens":3}`),
		count("2026-03-01T00:00:03.000Z", `"total_token_usage":{"input_tokens":300,"cached_input_tokens":900,"output_tokens":30}`),
		`{"broken":`+`"type":"event_msg" "type":"token_count"`,
		count("2026-03-01T00:00:04.000Z", `"last_token_usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0}`),
		count("2026-03-01T00:00:05.000Z", `"last_token_usage":{"input_tokens":7,"cached_input_tokens":2,"output_tokens":1,"total_tokens":8},"model":"gpt-5.2"`))
	files := countFiles(t, home, "")
	if len(files) != 1 {
		t.Fatalf("files %+v", files)
	}
	f := files[0]
	if len(f.Records) != 3 || f.Skipped != 1 || f.Project != "/w/p" || f.Session != "2026/03/01/rollout-a" {
		t.Fatalf("%+v", f)
	}
	r0, r1 := f.Records[0], f.Records[1]
	if r0.Input != 60 || r0.CacheRead != 40 || r0.Output != 10 || r0.Reasoning != 3 || r0.Total != 110 || r0.Model != "gpt-5.1-codex" {
		t.Errorf("first %+v", r0)
	}
	// The second total's cached input is held to its input (300), so the
	// delta's is 200 of 200.
	if r1.Input != 0 || r1.CacheRead != 200 || r1.Output != 20 {
		t.Errorf("second %+v", r1)
	}
	if f.Records[2].Model != "info-less" && f.Records[2].Total != 8 {
		t.Errorf("third %+v", f.Records[2])
	}
}

// A fork whose first two counts carry one second replays its parent's:
// those are not counted, the fork's own are; a rollout without a model
// is priced as gpt-5.
func TestCodexForkReplaySkipped(t *testing.T) {
	home := t.TempDir()
	writeRollout(t, filepath.Join(home, "sessions", "2026", "03", "01", "rollout-f.jsonl"), forkMeta,
		count("2026-03-03T00:00:00.100Z", `"last_token_usage":{"input_tokens":1000,"output_tokens":10},"total_token_usage":{"input_tokens":1000,"output_tokens":10}`),
		count("2026-03-03T00:00:00.200Z", `"last_token_usage":{"input_tokens":500,"output_tokens":5},"total_token_usage":{"input_tokens":1500,"output_tokens":15}`),
		count("2026-03-03T00:00:05.000Z", `"total_token_usage":{"input_tokens":1600,"output_tokens":25}`))
	f := countFiles(t, home, "")[0]
	if len(f.Records) != 1 || f.Records[0].Input != 100 || f.Records[0].Output != 10 || f.Records[0].Model != "gpt-5" {
		t.Fatalf("%+v", f.Records)
	}
}

// Counting a rollout in pieces (each count resuming where the last kept
// stopped) gives what one count of the whole gives, replay included.
func TestCodexIncrementalEqualsWhole(t *testing.T) {
	lines := []string{forkMeta,
		count("2026-03-03T00:00:00.100Z", `"total_token_usage":{"input_tokens":1000,"output_tokens":10}`),
		ctxLine,
		count("2026-03-03T00:00:00.900Z", `"total_token_usage":{"input_tokens":1500,"output_tokens":15}`),
		count("2026-03-03T00:00:05.000Z", `"total_token_usage":{"input_tokens":1600,"output_tokens":25}`),
		count("2026-03-03T00:00:06.000Z", `"last_token_usage":{"input_tokens":3,"output_tokens":1}`),
	}
	wholeHome := t.TempDir()
	writeRollout(t, filepath.Join(wholeHome, "sessions", "r.jsonl"), lines...)
	want := countFiles(t, wholeHome, "")[0].Records
	home, cache := t.TempDir(), filepath.Join(t.TempDir(), "catalog-codex.gob")
	p := filepath.Join(home, "sessions", "r.jsonl")
	var got []agent.UsageRecord
	for n := 1; n <= len(lines); n++ {
		writeRollout(t, p, lines[:n]...)
		got = countFiles(t, home, cache)[0].Records
	}
	if len(got) != len(want) || len(want) != 2 {
		t.Fatalf("pieces %+v, whole %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: pieces %+v, whole %+v", i, got[i], want[i])
		}
	}
}

// An archived copy of a rollout sessions/ still has is not counted twice.
func TestCodexArchivedCopyOnce(t *testing.T) {
	home := t.TempDir()
	l := count("2026-03-01T00:00:02.000Z", `"last_token_usage":{"input_tokens":5,"output_tokens":1}`)
	writeRollout(t, filepath.Join(home, "sessions", "rollout-a.jsonl"), metaLine, l)
	writeRollout(t, filepath.Join(home, "archived_sessions", "rollout-a.jsonl"), metaLine, l)
	writeRollout(t, filepath.Join(home, "archived_sessions", "rollout-b.jsonl"), metaLine, l)
	if files := countFiles(t, home, ""); len(files) != 2 || !strings.HasSuffix(files[0].Path, filepath.Join("sessions", "rollout-a.jsonl")) {
		t.Fatalf("%+v", files)
	}
}

// Past a rollout's first 16 KiB only the lines naming turn_context or
// token_count are read (filecache.Marked): a spaced count there still
// counts, a broken one is still skipped, and "thread_spawn" past the
// first 16 KiB does not make the rollout a fork.
func TestCodexPastForkSpan(t *testing.T) {
	home := t.TempDir()
	filler := `{"timestamp":"2026-03-01T00:00:01.500Z","type":"response_item","payload":{"type":"message","text":"` +
		strings.Repeat("x", 17<<10) + ` thread_spawn forked_from_id"}}`
	spaced := `{"timestamp" : "2026-03-01T00:00:02.500Z", "type" : "event_msg", "payload" : {"type" : "token_count", "info" : {"last_token_usage" : {"input_tokens" : 5, "output_tokens" : 1}}}}`
	writeRollout(t, filepath.Join(home, "sessions", "rollout-big.jsonl"), metaLine, filler, ctxLine,
		count("2026-03-01T00:00:02.000Z", `"last_token_usage":{"input_tokens":10,"output_tokens":2}`),
		filler, spaced,
		`{"timestamp":"2026-03-01T00:00:04.000Z","type":"event_msg","payload":{"type":"token_count",`,
		count("2026-03-01T00:00:02.000Z", `"last_token_usage":{"input_tokens":10,"output_tokens":2}`))
	f := countFiles(t, home, "")[0]
	if len(f.Records) != 3 || f.Skipped != 1 || f.Project != "/w/p" {
		t.Fatalf("records %+v, skipped %d, project %q", f.Records, f.Skipped, f.Project)
	}
	if r := f.Records[1]; r.Input != 5 || r.Output != 1 || r.Model != "gpt-5.1-codex" {
		t.Errorf("spaced count %+v", r)
	}
}

// ccusage 20.0.24 counts a token_count whatever its nesting (measured on
// its binary: 1,000 arrays in the payload count); one nested a million
// deep is skipped, not a crash (gjson checked it recursively, past the
// stack's limit: 1 GB for a line of ten megabytes, 8 MB here).
func TestCodexDeeplyNestedCount(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(8 << 20))
	nested := func(n int) string {
		return `"junk":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `,`
	}
	home := t.TempDir()
	writeRollout(t, filepath.Join(home, "sessions", "rollout-d.jsonl"), metaLine, ctxLine,
		count("2026-03-01T00:00:02.000Z", nested(1000)+`"last_token_usage":{"input_tokens":5,"output_tokens":1}`),
		count("2026-03-01T00:00:03.000Z", nested(1<<20)+`"last_token_usage":{"input_tokens":7,"output_tokens":1}`))
	files := countFiles(t, home, "")
	if len(files) != 1 || len(files[0].Records) != 1 || files[0].Records[0].Input != 5 || files[0].Skipped != 1 {
		t.Fatalf("%+v", files)
	}
}
