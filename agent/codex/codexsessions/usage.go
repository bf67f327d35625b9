package codexsessions

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/bincodec"
	"github.com/tidwall/gjson"
)

var _ agent.UsageCounter = (*Reader)(nil)

// usageKind versions what the counter keeps (see the Claude reader's).
const usageKind = "codex/2"

func (r *Reader) usageCache() *filecache.UsageCache {
	path := r.UsageCachePath
	if path == "" && r.Cache != nil && r.Cache.Path() != "" {
		path = filecache.UsagePath(r.Cache.Path())
	}
	if path == "" {
		return nil
	}
	if r.usage == nil {
		r.usage = filecache.OpenUsage(path, usageKind)
	}
	return r.usage
}

// CountUsage implements agent.UsageCounter: the rollouts under sessions/
// then archived_sessions/ (an archived copy of a path sessions/ has is
// not counted twice), each directory in path order, as ccusage reads
// them.
func (r *Reader) CountUsage(ctx context.Context) ([]agent.FileUsage, []agent.Diagnostic, error) {
	files, err := r.usagePaths("", nil)
	if err != nil {
		return nil, nil, err
	}
	return r.countFiles(ctx, files)
}

var _ agent.ArchiveUsageCounter = (*Reader)(nil)

// CountArchivedUsage implements agent.ArchiveUsageCounter: the archive's
// rollouts under dir/sessions and dir/archived_sessions whose originals
// are gone from both of the reader's (Codex moves a rollout from one to
// the other when a thread is archived), as CountUsage orders them.
func (r *Reader) CountArchivedUsage(ctx context.Context, dir string, live []agent.FileUsage) ([]agent.FileUsage, []agent.Diagnostic, error) {
	files, err := r.usagePaths(dir, live)
	if err != nil {
		return nil, nil, err
	}
	return r.countFiles(ctx, files)
}

// usagePaths are the rollouts CountUsage counts (archiveDir ""), or
// CountArchivedUsage(archiveDir, live), without records: a copy whose
// original is among live is left out without a stat.
func (r *Reader) usagePaths(archiveDir string, live []agent.FileUsage) ([]agent.FileUsage, error) {
	if archiveDir == "" {
		return rollouts(r.Dir, nil)
	}
	isLive := make(map[string]bool, len(live))
	for _, f := range live {
		isLive[f.Path] = true
	}
	sessions, archived := codex.SessionsDir(r.Dir), codex.ArchivedDir(r.Dir)
	return rollouts(archiveDir, func(rel string) bool {
		// archived_sessions/ is flat: a rollout moved there keeps its name.
		for _, p := range []string{filepath.Join(sessions, rel), filepath.Join(archived, rel), filepath.Join(archived, filepath.Base(rel))} {
			if isLive[p] {
				return false
			}
			if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
				return false
			}
		}
		return true // a copy also counted live is deduplicated all the same
	})
}

// rollouts are the rollouts under home's sessions/ and
// archived_sessions/ (only those rel, their path under either, for which
// keep holds, when it is set).
func rollouts(home string, keep func(rel string) bool) ([]agent.FileUsage, error) {
	var out []agent.FileUsage
	seen := map[string]bool{}
	for _, dir := range []string{codex.SessionsDir(home), codex.ArchivedDir(home)} {
		ps, err := filecache.JSONLFiles(dir)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			rel, _ := filepath.Rel(dir, p)
			if !seen[rel] && (keep == nil || keep(rel)) {
				seen[rel] = true
				out = append(out, agent.FileUsage{Harness: agent.Codex, Path: p,
					Session: strings.TrimSuffix(filepath.ToSlash(rel), ".jsonl"), Billing: agent.BillingFlat})
			}
		}
	}
	return out, nil
}

// countFiles counts the rollouts files name.
func (r *Reader) countFiles(ctx context.Context, files []agent.FileUsage) ([]agent.FileUsage, []agent.Diagnostic, error) {
	cache := r.usageCache()
	errs := make([]error, len(files))
	filecache.CountAll(len(files), func(i int) {
		if errs[i] = ctx.Err(); errs[i] != nil {
			return
		}
		f := &files[i]
		e, mark, err := filecache.CountUsage(cache, r.opener(), f.Path, &codexUsage{})
		if errs[i] = err; err != nil {
			return
		}
		f.Project, f.Records, f.Skipped, f.Mark = decodeState(e.State).cwd, e.Records, e.Skipped, mark
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var out []agent.FileUsage
	var diags []agent.Diagnostic
	for i, f := range files {
		if errs[i] != nil {
			diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: f.Path, Problem: "usage not counted: " + errs[i].Error()})
			continue
		}
		out = append(out, f)
	}
	if err := cache.Save(); err != nil {
		diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: cache.Path(), Problem: "usage cache not saved: " + err.Error()})
	}
	return out, diags, nil
}

var _ agent.UsageResumer = (*Reader)(nil)

// UsageVersion implements agent.UsageResumer.
func (r *Reader) UsageVersion() string { return usageKind }

// UsageFiles implements agent.UsageResumer (a rollout's Project, its
// session_meta's cwd, is known only once it is counted).
func (r *Reader) UsageFiles(_ context.Context, archiveDir string, live []agent.FileUsage) ([]agent.FileUsage, []agent.Diagnostic, error) {
	files, err := r.usagePaths(archiveDir, live)
	if err != nil {
		return nil, nil, err
	}
	files, diags := filecache.Stamp(files)
	return files, diags, nil
}

// ResumeUsage implements agent.UsageResumer.
func (r *Reader) ResumeUsage(f agent.FileUsage) (agent.FileUsage, bool, error) {
	e, mark, ok, err := filecache.Resume(r.opener(), f.Path, f.Mark, &codexUsage{})
	if !ok || err != nil {
		return f, false, err
	}
	f.Project, f.Records, f.Skipped, f.Mark = decodeState(e.State).cwd, e.Records, e.Skipped, mark
	return f, true, nil
}

// rawUsage is one token_count's counts.
type rawUsage struct{ input, cached, output, reasoning, total int64 }

// codexState is where a count of a rollout stopped: what the next line's
// count depends on.
type codexState struct {
	prev         rawUsage
	hasPrev      bool
	model        string
	fallback     bool
	cwd          string
	replayCand   bool   // a fork or a subagent's rollout, which may replay its parent's counts
	decided      bool   // whether its replayed prefix is known (always, but for candidates)
	replaySecond string // the second the replayed counts carry ("": none)
	skipping     bool
}

func (s *codexState) encode() []byte {
	w := &bincodec.Writer{}
	for _, v := range []int64{s.prev.input, s.prev.cached, s.prev.output, s.prev.reasoning, s.prev.total} {
		w.Int(v)
	}
	for _, b := range []bool{s.hasPrev, s.fallback, s.replayCand, s.decided, s.skipping} {
		w.Bool(b)
	}
	w.Str(s.model)
	w.Str(s.cwd)
	w.Str(s.replaySecond)
	return w.B
}

func decodeState(b []byte) codexState {
	var s codexState
	if len(b) == 0 {
		return s
	}
	r := bincodec.NewReader(b)
	for _, p := range []*int64{&s.prev.input, &s.prev.cached, &s.prev.output, &s.prev.reasoning, &s.prev.total} {
		*p = r.Int()
	}
	for _, p := range []*bool{&s.hasPrev, &s.fallback, &s.replayCand, &s.decided, &s.skipping} {
		*p = r.Bool()
	}
	s.model, s.cwd, s.replaySecond = strings.Clone(r.Str()), strings.Clone(r.Str()), strings.Clone(r.Str())
	if r.Err() != nil {
		return codexState{}
	}
	return s
}

// codexUsage counts a rollout's token_count events by ccusage's rules:
// each event's last_token_usage (else its total_token_usage less the
// previous total); an event of all zeros is not counted; the model is the
// event's own, else the last turn_context's, else "gpt-5"; cached input
// counts at most the input. A fork's or a subagent's rollout whose first
// two counts carry the same second replays its parent's: the counts of
// that second, at its start, are not counted again.
type codexUsage struct {
	st      codexState
	recs    []agent.UsageRecord
	skipped int
	held    [][]byte // a candidate's lines after its first count, until the replay is decided
	first   string   // that count's second
}

func (c *codexUsage) Start(state []byte) { c.st = decodeState(state) }

func (c *codexUsage) End() ([]agent.UsageRecord, int, []byte, bool) {
	if len(c.held) > 0 {
		// Undecided at the end: no second count (yet), so no replay as of
		// now; counted as such, and from the start again next time.
		c.st.decided = true
		for _, l := range c.held {
			c.line(l)
		}
		c.held = nil
		return c.recs, c.skipped, c.st.encode(), true
	}
	return c.recs, c.skipped, c.st.encode(), false
}

var (
	markTurnContext = []byte(`"type":"turn_context"`)
	markEventMsg    = []byte(`"type":"event_msg"`)
	markTokenCount  = []byte(`"type":"token_count"`)
	markSessionMeta = []byte(`"type":"session_meta"`)
	markType        = []byte(`"type":`)
)

// forkSpan is how much of a rollout's start tells a fork or a subagent's
// rollout (ccusage reads its first 16 KiB for thread_spawn or
// forked_from_id).
const forkSpan = 16 << 10

// Marker implements filecache.Marked: a line worth parsing (isSessionLine)
// names turn_context or token_count, so holds "n_co"; found by its '_',
// the rarest of its bytes in a rollout.
func (c *codexUsage) Marker() ([]byte, int) { return []byte("n_co"), 1 }

// Whole implements filecache.Marked: the lines of a rollout's first
// forkSpan bytes all count (the fork test and session_meta read them).
func (c *codexUsage) Whole() int64 { return forkSpan }

func (c *codexUsage) Line(b []byte, start int64) {
	if start < forkSpan && (bytes.Contains(b, []byte("thread_spawn")) || bytes.Contains(b, []byte("forked_from_id"))) {
		end := min(int64(len(b)), forkSpan-start)
		if bytes.Contains(b[:end], []byte("thread_spawn")) || bytes.Contains(b[:end], []byte("forked_from_id")) {
			c.st.replayCand = true
		}
	}
	if c.st.cwd == "" && bytes.Contains(b, markSessionMeta) {
		if cwd := gjson.GetBytes(b, "payload.cwd"); cwd.Type == gjson.String {
			c.st.cwd = strings.Clone(cwd.Str)
		}
	}
	if c.st.replayCand && !c.st.decided {
		c.decide(b)
		return
	}
	c.line(b)
}

// decide holds a candidate's lines from its first count until its second
// says whether the start is a replay.
func (c *codexUsage) decide(b []byte) {
	sec, isCount := c.countSecond(b)
	switch {
	case isCount && c.first == "" && len(c.held) == 0:
		c.first = sec
		c.held = append(c.held, bytes.Clone(b))
	case isCount:
		c.st.decided = true
		if sec == c.first {
			c.st.replaySecond, c.st.skipping = sec, true
		}
		held := c.held
		c.held = nil
		for _, l := range held {
			c.line(l)
		}
		c.line(b)
	case len(c.held) > 0:
		c.held = append(c.held, bytes.Clone(b))
	default:
		c.line(b)
	}
}

// countSecond is the second (its first 19 bytes) of a token_count that
// carries usage, as the replay check reads them.
func (c *codexUsage) countSecond(b []byte) (string, bool) {
	if !isSessionLine(b) {
		return "", false
	}
	v := gjson.ParseBytes(b)
	if v.Get("type").Str != "event_msg" || v.Get("payload.type").Str != "token_count" {
		return "", false
	}
	info := v.Get("payload.info")
	if !info.Get("last_token_usage").IsObject() && !info.Get("total_token_usage").IsObject() {
		return "", false
	}
	ts := timestampOf(v.Get("timestamp"))
	if len(ts) < 19 {
		return "", false
	}
	return ts[:19], true
}

// isSessionLine is ccusage's test for a line worth parsing: a
// turn_context, or an event_msg that is a token_count (compact JSON; or
// spaced, found by walking its "type" keys).
func isSessionLine(b []byte) bool {
	ev := bytes.Contains(b, markEventMsg)
	// A token_count, the most common, first: turn_context is searched
	// for in the whole line.
	if ev && bytes.Contains(b, markTokenCount) || bytes.Contains(b, markTurnContext) {
		return true
	}
	compact := bytes.Contains(b, markType)
	nested := !ev && compact && len(b) < 64<<10 && bytes.Contains(b, markTokenCount)
	if ev || nested || !compact {
		tc, e, t := typeFlags(b)
		return tc || e && t
	}
	return false
}

// typeFlags walks the line's "type" keys, whitespace allowed around the
// colon, for the values turn_context, event_msg and token_count.
func typeFlags(b []byte) (turnContext, eventMsg, tokenCount bool) {
	key := []byte(`"type"`)
	for start := 0; ; {
		i := bytes.Index(b[start:], key)
		if i < 0 {
			return
		}
		cur := skipSpace(b, start+i+len(key))
		if cur >= len(b) || b[cur] != ':' {
			start += i + len(key)
			continue
		}
		cur = skipSpace(b, cur+1)
		if cur >= len(b) || b[cur] != '"' {
			start = cur + 1
			continue
		}
		cur++
		rest := b[cur:]
		turnContext = turnContext || bytes.HasPrefix(rest, []byte(`turn_context"`))
		eventMsg = eventMsg || bytes.HasPrefix(rest, []byte(`event_msg"`))
		tokenCount = tokenCount || bytes.HasPrefix(rest, []byte(`token_count"`))
		if turnContext || eventMsg && tokenCount {
			return
		}
		start = cur + 1
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

func timestampOf(v gjson.Result) string {
	if v.Type == gjson.String {
		return strings.TrimSpace(v.Str)
	}
	return ""
}

// modelOf is v's model, model_name or metadata.model, the first that is
// a string not blank, read in one pass over v's members (a gjson.Get of
// each walked a token_count's payload and info three times over).
func modelOf(v gjson.Result) string {
	var model, name, meta gjson.Result
	v.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "model":
			if !model.Exists() {
				model = val
			}
		case "model_name":
			if !name.Exists() {
				name = val
			}
		case "metadata":
			if !meta.Exists() {
				meta = val
			}
		}
		return true
	})
	for _, m := range []gjson.Result{model, name, meta.Get("model")} {
		if m.Type == gjson.String && strings.TrimSpace(m.Str) != "" {
			return strings.TrimSpace(m.Str)
		}
	}
	return ""
}

func (c *codexUsage) line(b []byte) {
	if !isSessionLine(b) {
		return
	}
	// jsonl.Valid, gjson.ValidBytes' grammar, stops at a depth no rollout
	// reaches: gjson's recursion ran a line of ten megabytes of '[' past
	// the stack's limit, a fatal error.
	if !jsonl.Valid(b) {
		c.skipped++
		return
	}
	v := gjson.ParseBytes(b)
	switch v.Get("type").Str {
	case "turn_context":
		if m := modelOf(v.Get("payload")); m != "" {
			c.st.model, c.st.fallback = strings.Clone(m), false
		}
		return
	case "event_msg":
	default:
		return
	}
	ts := timestampOf(v.Get("timestamp"))
	payload := v.Get("payload")
	if ts == "" || payload.Get("type").Str != "token_count" {
		return
	}
	info := payload.Get("info")
	total, hasTotal := usageOf(info.Get("total_token_usage"))
	if c.st.skipping {
		if len(ts) >= 19 && ts[:19] == c.st.replaySecond {
			if hasTotal {
				c.st.prev, c.st.hasPrev = total, true
			}
			return
		}
		c.st.skipping = false
	}
	raw, ok := usageOf(info.Get("last_token_usage"))
	if !ok && hasTotal {
		raw, ok = total.minus(c.st.prev), true
	}
	if hasTotal {
		c.st.prev, c.st.hasPrev = total, true
	}
	if !ok || raw.input == 0 && raw.cached == 0 && raw.output == 0 && raw.reasoning == 0 {
		return
	}
	c.count(ts, raw, payload, info)
}

func (c *codexUsage) count(ts string, raw rawUsage, payload, info gjson.Result) {
	model := modelOf(payload)
	if model == "" {
		model = modelOf(info)
	}
	if model != "" {
		c.st.model, c.st.fallback = strings.Clone(model), false
	} else if c.st.model == "" {
		c.st.model, c.st.fallback = "gpt-5", true
	}
	model = strings.Clone(c.st.model)
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		c.skipped++
		return
	}
	cached := min(raw.cached, raw.input)
	rec := agent.UsageRecord{Time: t.UnixMilli(), Model: model, Input: raw.input - cached, CacheRead: cached,
		Output: raw.output, Reasoning: raw.reasoning, Total: raw.total}
	h := fnv.New64a()
	h.Write([]byte(model))
	w := &bincodec.Writer{}
	for _, n := range []int64{rec.Time, raw.input, cached, raw.output, raw.reasoning, raw.total} {
		w.Int(n)
	}
	h.Write(w.B)
	rec.Key = h.Sum64() | 1
	c.recs = append(c.recs, rec)
}

// usageOf reads a usage object under any of the names Codex versions
// used; a value of another type counts as absent (ccusage's lossy read).
func usageOf(v gjson.Result) (rawUsage, bool) {
	if !v.IsObject() {
		return rawUsage{}, false
	}
	// One pass over the members, not a gjson.Get of each name (twelve,
	// most of them absent: each walked the whole object).
	var vals [len(usageNames)]gjson.Result
	v.ForEach(func(k, val gjson.Result) bool {
		if i := slices.Index(usageNames[:], k.Str); i >= 0 && !vals[i].Exists() {
			vals[i] = val
		}
		return true
	})
	num := func(names ...string) (int64, bool) {
		for _, n := range names {
			f := vals[slices.Index(usageNames[:], n)]
			if f.Type == gjson.Number && !strings.ContainsAny(f.Raw, ".eE-") {
				return f.Int(), true
			}
		}
		return 0, false
	}
	in, _ := num("input_tokens", "prompt_tokens", "input")
	out, _ := num("output_tokens", "completion_tokens", "output")
	reason, _ := num("reasoning_output_tokens", "reasoning_tokens")
	cached, _ := num("cached_input_tokens", "cache_read_input_tokens", "cached_tokens")
	// ccusage 20.0.24 holds cached input to the input in every usage it
	// reads (a total too, so a delta of totals is of held values), and
	// totals a usage without one as input + output.
	u := rawUsage{input: in, cached: min(cached, in), output: out, reasoning: reason, total: in + out}
	if t, ok := num("total_tokens"); ok && (t > 0 || in+out == 0) {
		u.total = t
	}
	return u, true
}

// usageNames are the members usageOf reads.
var usageNames = [...]string{"input_tokens", "prompt_tokens", "input", "output_tokens", "completion_tokens", "output",
	"reasoning_output_tokens", "reasoning_tokens", "cached_input_tokens", "cache_read_input_tokens", "cached_tokens", "total_tokens"}

func (u rawUsage) minus(p rawUsage) rawUsage {
	sub := func(a, b int64) int64 { return max(a-b, 0) }
	return rawUsage{sub(u.input, p.input), sub(u.cached, p.cached), sub(u.output, p.output), sub(u.reasoning, p.reasoning), sub(u.total, p.total)}
}
