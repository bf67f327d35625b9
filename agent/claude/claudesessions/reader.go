// Package claudesessions is Claude Code's session reader: it lists the
// transcripts under a config dir's projects/ cheaply (a bounded head and
// tail of each, cached by (path, size, mtime), with the directory skip),
// reads one whole for show, and gives search the texts of its records.
// Only tether links it (agent.Lister); tether-hot's agent is agent/claude
// alone.
package claudesessions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"

	"github.com/tidwall/gjson"
)

// Reader reads Claude Code sessions under a config dir
// ($CLAUDE_CONFIG_DIR or ~/.claude).
type Reader struct {
	Dir   string
	Procs scan.ProcessInspector
	Open  agent.Opener
	Cache *Cache
	// HeadBytes and TailBytes bound what List reads per transcript.
	HeadBytes, TailBytes int64
	// Windows gives a model's context window.
	Windows agent.Windows
	// WorkRules find work references in show (nil: DefaultWorkRules).
	WorkRules []agent.WorkRule
	// Now is the clock of the directory skip (nil: time.Now).
	Now func() time.Time
	// Live tunes the running check (the zero value inspects this machine).
	Live claude.LiveOptions
	// agent.Counts gives the message counts a list cannot compute cheaply (nil:
	// such counts stay unknown).
	Counts agent.CountIndex

	roots evidence.RootMemo
	stats *scan.DirStats // set per listing (ShareStats) by the catalog
	// UsageCachePath is CountUsage's cache ("": beside Cache's file).
	UsageCachePath string
	usage          *filecache.UsageCache // opened by CountUsage
}

// Harness implements Reader.
func (r *Reader) Harness() string { return agent.Claude }

func (r *Reader) opener() agent.Opener {
	if r.Open != nil {
		return r.Open
	}
	return agent.OSOpen
}

func (r *Reader) budgets() (int64, int64) {
	h, t := r.HeadBytes, r.TailBytes
	if h <= 0 {
		h = scan.DefaultHeadBytes
	}
	if t <= 0 {
		t = scan.DefaultTailBytes
	}
	return h, t
}

// summary is what List learns from one transcript (and caches).
type summary struct {
	ID           string        `json:"id"`
	Cwd          string        `json:"cwd"`
	Branch       string        `json:"branch,omitempty"`
	Version      string        `json:"version,omitempty"`
	Entrypoint   string        `json:"entrypoint,omitempty"`
	Model        string        `json:"model,omitempty"`
	Created      time.Time     `json:"created"`
	LastActivity time.Time     `json:"lastActivity"`
	LastHuman    time.Time     `json:"lastHuman"`
	FirstPrompt  string        `json:"firstPrompt,omitempty"`
	CustomTitle  string        `json:"customTitle,omitempty"`
	AITitle      string        `json:"aiTitle,omitempty"`
	LastPrompt   string        `json:"lastPrompt,omitempty"`
	Summary      string        `json:"summary,omitempty"`
	Tokens       int64         `json:"tokens"`
	HasUsage     bool          `json:"hasUsage"`
	Records      int           `json:"records"`
	Problem      string        `json:"problem,omitempty"`
	Msgs         scan.MsgState `json:"-"`
	// resetInTail: the read's tail held a compact boundary (not cached:
	// only the read that found it decides whether to read further back).
	resetInTail bool
}

// clone copies every string so the summary no longer pins the lines (or
// the read buffer) they were sliced from: kept for thousands of sessions,
// those would cost hundreds of megabytes.
func (s *summary) clone() {
	for _, p := range []*string{&s.ID, &s.Cwd, &s.Branch, &s.Version, &s.Entrypoint, &s.Model, &s.FirstPrompt,
		&s.CustomTitle, &s.AITitle, &s.LastPrompt, &s.Summary} {
		*p = strings.Clone(*p)
	}
}

// claudeDir is one project directory of a listing: its transcripts are
// paths[start:end].
type claudeDir struct {
	path       string
	rec        filecache.DirRecord
	trusted    bool
	start, end int
}

// dropLosingTitles clears the title candidates session() would not pick,
// so the cached record holds one title, not four (custom > AI > last
// prompt > summary; the first prompt is kept, sessions report it).
func (s *summary) dropLosingTitles() {
	switch {
	case s.CustomTitle != "":
		s.AITitle, s.LastPrompt, s.Summary = "", "", ""
	case s.AITitle != "":
		s.LastPrompt, s.Summary = "", ""
	case s.LastPrompt != "":
		s.Summary = ""
	}
}

// List implements Reader.
func (r *Reader) List(ctx context.Context, _ agent.ListOptions) ([]agent.Session, []agent.Diagnostic, error) {
	projects := claude.ProjectsDir(r.Dir)
	entries, err := os.ReadDir(projects)
	if err != nil {
		if scan.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read %s: %w", projects, err)
	}
	running := r.running()
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	var (
		diags []agent.Diagnostic
		paths []string
		dirs  []claudeDir
	)
	links := scan.NewLinkGuard(projects)
	for _, e := range entries {
		if !links.Dir(e) {
			continue
		}
		d := claudeDir{path: filepath.Join(projects, e.Name()), start: len(paths)}
		names, err := r.dirFiles(&d, now, links)
		if err != nil {
			diags = append(diags, agent.Diagnostic{Harness: agent.Claude, Path: d.path, Problem: "unreadable project directory: " + err.Error()})
			continue
		}
		paths = scan.JoinNames(paths, d.path, names)
		d.end = len(paths)
		dirs = append(dirs, d)
	}
	results, err := r.summarizeAll(ctx, paths, dirs, running)
	if err != nil {
		return nil, diags, err
	}
	r.fillCounts(paths, results)
	for _, d := range dirs {
		d.rec.Newest = 0
		for _, res := range results[d.start:d.end] {
			d.rec.Newest = max(d.rec.Newest, res.mtime)
		}
		old, hadOld := r.Cache.Dir(d.path)
		r.Cache.StoreDir(d.path, scan.KeepHotRecord(d.rec, old, hadOld && !d.trusted, now.UnixNano()))
	}
	for i, path := range paths {
		switch res := &results[i]; {
		case res.err != nil:
			diags = append(diags, agent.Diagnostic{Harness: agent.Claude, Path: path, Problem: res.err.Error()})
		case res.sum.Problem != "":
			diags = append(diags, agent.Diagnostic{Harness: agent.Claude, Path: path, Problem: res.sum.Problem})
		}
	}
	out := r.sessions(paths, results, running)
	if err := r.Cache.Save(); err != nil {
		diags = append(diags, agent.Diagnostic{Harness: agent.Claude, Path: r.Cache.Path(), Problem: "cache not saved: " + err.Error()})
	}
	return out, diags, nil
}

// sessions builds the sessions of the transcripts summarized without
// error, in order, in parallel (each depends only on its own summary;
// 8,500 took ~20 ms on one core): in place in one slice, which is then
// closed up over the failures, if any.
func (r *Reader) sessions(paths []string, results []summaryResult, running *claude.LiveSet) []agent.Session {
	out := make([]agent.Session, len(paths), scan.JoinRoom(len(paths)))
	ok := func(i int) bool { return results[i].err == nil && results[i].sum.Problem == "" }
	fill := func(lo, hi int) {
		// A directory's sessions come together and mostly share their
		// cwd: resolved once for a run of them, not looked up in the
		// shared memo (a lock and three lookups) for each.
		var last struct {
			cwd, root, origin string
			ok                bool
		}
		blocks := &scan.ValueBlocks{}
		for i := lo; i < hi; i++ {
			if ok(i) {
				if cwd := results[i].sum.Cwd; !last.ok || cwd != last.cwd {
					last.cwd, last.root, last.origin, last.ok = cwd, r.roots.Get(cwd), r.roots.Origin(cwd), true
				}
				r.sessionInto(&out[i], paths[i], results[i].sum, running, last.root, last.origin, blocks)
				out[i].SourceSize, out[i].SourceMTime = results[i].size, results[i].mtime
			}
		}
	}
	parts := min(runtime.GOMAXPROCS(0), 1+len(paths)/2000)
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fill(len(paths)*p/parts, len(paths)*(p+1)/parts)
		}()
	}
	fill(0, len(paths)/parts)
	wg.Wait()
	n := 0
	for i := range out {
		if !ok(i) {
			continue
		}
		if n != i {
			out[n] = out[i]
		}
		n++
	}
	clear(out[n:])
	return out[:n]
}

// dirFiles returns the transcript names of project directory d: the
// recorded ones when the directory can be trusted (see the directory skip
// above), else a fresh listing, recorded in d.rec.
func (r *Reader) dirFiles(d *claudeDir, now time.Time, links *scan.LinkGuard) ([]string, error) {
	fi, err := os.Stat(d.path)
	if err != nil {
		return nil, err
	}
	mtime := fi.ModTime().UnixNano()
	r.stats.Put(d.path, mtime)
	if rec, ok := r.Cache.Dir(d.path); ok && rec.MTime == mtime &&
		mtime < rec.Checked-int64(scan.DirRacyWindow) &&
		now.UnixNano()-rec.Checked < int64(scan.DirRecheck) &&
		now.UnixNano()-rec.Newest > int64(scan.DirHotWindow) {
		d.rec, d.trusted = rec, true
		return rec.Files, nil
	}
	checked := now.UnixNano()
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if name := e.Name(); claude.IsSessionFile(name) && links.File(d.path, e) {
			names = append(names, name)
		}
	}
	d.rec = filecache.DirRecord{MTime: mtime, Checked: checked, Files: names}
	return names, nil
}

// summaryResult is what summarizing one transcript gave.
type summaryResult struct {
	// sum is the cache's own value for a transcript taken from the cache
	// (not copied: 8,500 summaries copied were 3 MB a warm list wrote,
	// page faults included); never changed in place.
	sum         *summary
	size, mtime int64
	err         error
}

// summarizeAll summarizes every path on every core: files are independent.
// A file of a trusted directory is taken from the cache without a stat,
// unless a live process names it.
func (r *Reader) summarizeAll(ctx context.Context, paths []string, dirs []claudeDir, running *claude.LiveSet) ([]summaryResult, error) {
	results := make([]summaryResult, len(paths))
	trusted := make([]bool, len(paths))
	for _, d := range dirs {
		for i := d.start; i < d.end && d.trusted; i++ {
			trusted[i] = !running.Check(claude.SessionID(paths[i]), paths[i]).Live()
		}
	}
	// A trusted transcript's summary comes from the cache: taken here, in
	// one pass, so only the files that must be read go to the workers
	// (8,500 cached summaries through the channel, two workers contending
	// for the cache's lock, cost more than the lookups).
	todo := make([]int, 0, len(paths))
	for i := range paths {
		if trusted[i] {
			res := &results[i]
			if sum, sz, mt, ok := r.Cache.Peek(paths[i]); ok {
				res.sum, res.size, res.mtime = sum, sz, mt
				continue
			}
		}
		todo = append(todo, i)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				res := &results[i]
				sum, size, mtime, err := r.summarizeSized(paths[i])
				res.sum, res.size, res.mtime, res.err = &sum, size, mtime, err
			}
		}()
	}
	for _, i := range todo {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	return results, ctx.Err()
}

// fillCounts takes the message counts the listing lacks from r.Counts.
func (r *Reader) fillCounts(paths []string, results []summaryResult) {
	var missing []string
	for i := range results {
		if res := &results[i]; res.err == nil && res.sum.Problem == "" && !res.sum.Msgs.Known {
			missing = append(missing, paths[i])
		}
	}
	got := r.Cache.FillCounts(r.Counts, missing)
	for i := range results {
		if mc, ok := got[paths[i]]; ok {
			sum := *results[i].sum // the cache's, maybe: not changed in place
			sum.Msgs.Known, sum.Msgs.Count = true, mc
			results[i].sum = &sum
		}
	}
}

func (r *Reader) summarize(path string) (summary, int64, error) {
	sum, _, mtime, err := r.summarizeSized(path)
	return sum, mtime, err
}

// summarizeSized is summarize that also returns the size the summary is
// of.
func (r *Reader) summarizeSized(path string) (summary, int64, int64, error) {
	var sum, prev summary
	hadPrev := false
	// A warm list is one stat per file: open only on a cache miss.
	if r.Cache != nil {
		if fi, err := os.Stat(path); err == nil && r.Cache.Lookup(path, fi.Size(), fi.ModTime(), &sum) {
			return sum, fi.Size(), fi.ModTime().UnixNano(), nil
		}
		// What the last read knew: a count to go on from.
		_, hadPrev = r.Cache.LookupAny(path, &prev)
	}
	f, err := r.opener()(path)
	if err != nil {
		return summary{}, 0, 0, fmt.Errorf("unreadable: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return summary{}, 0, 0, fmt.Errorf("unreadable: %w", err)
	}
	h, t := r.budgets()
	c, release, err := scan.ReadHeadTail(f, h, t)
	defer release()
	if err != nil {
		return summary{}, 0, 0, fmt.Errorf("unreadable: %w", err)
	}
	whole := c.Tail == nil && c.RawTail == nil
	sum, counted := r.scanChunks(path, c, whole)
	msgs := scan.NextMsgState(f, fi, c, whole, counted, prev.Msgs, hadPrev, countLine)
	// With the default budgets, a file that was cut and lacks what only a
	// wider read can give is read again once with the Max budgets: the
	// whole of both when the head named no cwd, else only the bytes
	// before the tail (the head was enough; re-reading it cost bytes).
	if r.HeadBytes <= 0 && r.TailBytes <= 0 && fi.Size() > h+t {
		switch {
		case sum.Cwd == "":
			sum, err = r.scan(f, path, scan.MaxHeadBytes, scan.MaxTailBytes)
		case !sum.HasUsage && !sum.resetInTail:
			tail, _, werr := scan.WidenTail(f, c, scan.MaxTailBytes)
			if werr != nil {
				return summary{}, 0, 0, fmt.Errorf("unreadable: %w", werr)
			}
			c.Tail = tail
			sum, _ = r.scanChunks(path, c, false)
		}
	}
	if err != nil {
		return summary{}, 0, 0, err
	}
	sum.Msgs = msgs
	r.Cache.Store(path, fi.Size(), fi.ModTime(), sum)
	return sum, fi.Size(), fi.ModTime().UnixNano(), nil
}

func (r *Reader) scan(f agent.File, path string, h, t int64) (summary, error) {
	c, release, err := scan.ReadHeadTail(f, h, t)
	defer release()
	if err != nil {
		return summary{}, fmt.Errorf("unreadable: %w", err)
	}
	sum, _ := r.scanChunks(path, c, false)
	return sum, nil
}

// scanChunks summarizes what was read; with count (the file was read
// whole, in c.Head) it also counts the messages of its complete lines.
func (r *Reader) scanChunks(path string, c scan.Chunks, count bool) (summary, agent.MessageCount) {
	sc := newClaudeScan(strings.TrimSuffix(filepath.Base(path), ".jsonl"), nil)
	var mc agent.MessageCount
	if count {
		scan.ScanCounting(c.Head, &mc, &sc.count, sc.line)
	} else {
		scan.EachLine(c.Head, sc.line)
	}
	sc.endHead()
	scan.EachLine(c.Tail, sc.line)
	return sc.summary(c.Size, c.ModTime), mc
}

func (r *Reader) session(path string, sum summary, running *claude.LiveSet) agent.Session {
	var s agent.Session
	r.sessionInto(&s, path, &sum, running, r.roots.Get(sum.Cwd), r.roots.Origin(sum.Cwd), nil)
	return s
}

// sessionInto fills s (zero) with the session of sum, given sum.Cwd's
// identity root and origin id; the values s points to come from blocks
// (nil: allocated one by one).
func (r *Reader) sessionInto(s *agent.Session, path string, sum *summary, running *claude.LiveSet, root, origin string, blocks *scan.ValueBlocks) {
	*s = agent.Session{
		Harness:      agent.Claude,
		ID:           sum.ID,
		Cwd:          sum.Cwd,
		IdentityRoot: root,
		GitOrigin:    origin,
		GitBranch:    sum.Branch,
		Created:      sum.Created,
		LastActivity: sum.LastActivity,
		FirstPrompt:  sum.FirstPrompt,
		State:        agent.StateResumable,
		Source:       path,
		CLIVersion:   sum.Version,
		Origin:       sum.Entrypoint,
		Model:        sum.Model,
		Resume:       agent.ResumeSpec{Argv: blocks.Strings(resumeArgv(sum.ID)...), Dir: sum.Cwd},
	}
	if sum.Msgs.Known {
		s.Messages = blocks.Int(sum.Msgs.Count.N)
	}
	if s.GitBranch == "HEAD" {
		// Claude records "HEAD" outside a branch (and outside git).
		s.GitBranch = ""
	}
	if !sum.LastHuman.IsZero() {
		s.LastHumanActivity = blocks.Time(sum.LastHuman)
	}
	switch {
	case sum.CustomTitle != "":
		s.Title, s.TitleSource = sum.CustomTitle, agent.TitleCustom
	case sum.AITitle != "":
		s.Title, s.TitleSource = sum.AITitle, agent.TitleAI
	case sum.LastPrompt != "":
		s.Title, s.TitleSource = sum.LastPrompt, agent.TitleLastPrompt
	case sum.Summary != "":
		s.Title, s.TitleSource = sum.Summary, agent.TitleSummary
	case sum.FirstPrompt != "":
		s.Title, s.TitleSource = sum.FirstPrompt, agent.TitleFirstPrompt
	default:
		s.Title, s.TitleSource = agent.CwdTitle(sum.Cwd), agent.TitleCwd
	}
	s.Title = scan.OneLine(s.Title, 200)
	if sum.HasUsage {
		w, src := r.Windows.For(sum.Model, 0, 0)
		s.Context = blocks.Context(agent.ContextUsage{Tokens: sum.Tokens, Window: w, WindowKnown: agent.Known(src), Percent: agent.Percent(sum.Tokens, w)})
	}
	if live := running.Check(sum.ID, path); live.Live() {
		s.State = agent.StateRunning
		s.Runtime = &agent.Runtime{PID: live.PID}
		if p := live.Session; p != nil {
			s.Runtime = &agent.Runtime{PID: p.PID, Status: p.Status, TmuxTarget: p.Tmux, Tmux: tmuxSessionName(p.Tmux)}
		} else if live.Possible {
			s.Runtime.Status = agent.StatusPossibly
		}
	}
	s.NormalizeTimes()
}

// running looks once at the live processes (sessions/<pid>.json and
// /proc), for every session of this listing.
func (r *Reader) running() *claude.LiveSet {
	procs := r.Procs
	if procs == nil {
		procs = scan.OSProcesses{}
	}
	o := r.Live
	o.Alive = procs.Alive
	return claude.ScanLive(r.Dir, o)
}

// resumeArgv is Claude Code's resume command for id: the agent's own
// Resume, which reads nothing of the agent value (so none is kept).
func resumeArgv(id string) []string {
	argv, _ := (*claude.Agent)(nil).Resume(id, "", false)
	return argv
}

// tmuxSessionName takes the session name out of "sess:@win.%pane".
func tmuxSessionName(target string) string {
	if i := strings.LastIndex(target, ":@"); i >= 0 {
		return target[:i]
	}
	if i := strings.IndexByte(target, ':'); i >= 0 {
		return target[:i]
	}
	return target
}

// claudeScan extracts a summary from transcript lines in file order. With
// full set it also collects what Get reports.
type claudeScan struct {
	fileID  string
	full    bool
	inTail  bool
	sum     summary
	valid   int
	invalid int
	// usage after the last compact boundary
	tokens   int64
	hasUsage bool
	// resetInTail: a compact boundary in the tail, so no usage before the
	// tail counts and a wider read cannot find any.
	resetInTail bool

	// count, when set, counts messages (a full read, or a list's read of
	// a whole file).
	count *agent.MessageCount

	// full read only
	prompts []string
	counts  agent.Counts
	curve   []int64
	ev      *evidence.Collector
}

func newClaudeScan(fileID string, ev *evidence.Collector) *claudeScan {
	sc := &claudeScan{fileID: fileID, full: ev != nil, ev: ev}
	if sc.full {
		sc.count = &agent.MessageCount{}
	}
	return sc
}

func (sc *claudeScan) endHead() { sc.inTail = true }

func (sc *claudeScan) line(b []byte) {
	rec, ok := claude.ParseRec(scan.BytesString(b, !sc.full))
	if !ok {
		sc.invalid++
		return
	}
	sc.valid++
	var ts time.Time
	if rec.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, rec.Timestamp); err == nil {
			ts = t
			if sc.sum.Created.IsZero() || t.Before(sc.sum.Created) {
				sc.sum.Created = t
			}
			if t.After(sc.sum.LastActivity) {
				sc.sum.LastActivity = t
			}
		}
	}
	if sc.sum.Cwd == "" && rec.Cwd != "" {
		sc.sum.Cwd = rec.Cwd
	}
	if sc.sum.ID == "" {
		sc.sum.ID = rec.SessionID
	}
	if rec.Version != "" {
		sc.sum.Version = rec.Version
	}
	if rec.Entrypoint != "" && sc.sum.Entrypoint == "" {
		sc.sum.Entrypoint = rec.Entrypoint
	}
	if rec.HasBranch && !rec.Sidechain {
		sc.sum.Branch = rec.GitBranch
	}
	var counted, newMsg bool
	if sc.count != nil {
		counted, newMsg = countRecord(sc.count, rec)
	}
	switch rec.Type {
	case claude.TypeCustomTitle:
		sc.sum.CustomTitle = rec.CustomTitle
	case claude.TypeAITitle:
		sc.sum.AITitle = rec.AITitle
	case claude.TypeLastPrompt:
		sc.sum.LastPrompt = rec.LastPrompt
	case claude.TypeSummary:
		sc.sum.Summary = rec.Summary
	case claude.TypeSystem:
		if rec.IsCompactBoundary() {
			// Context usage restarts here.
			sc.tokens, sc.hasUsage = 0, false
			sc.resetInTail = sc.resetInTail || sc.inTail
			if sc.full {
				sc.curve = append(sc.curve, rec.PostTokens())
			}
		}
	case claude.TypeUser:
		if text, ok := claude.HumanPrompt(rec); ok {
			if sc.sum.FirstPrompt == "" {
				sc.sum.FirstPrompt = scan.OneLine(text, 500)
			}
			if ts.After(sc.sum.LastHuman) {
				sc.sum.LastHuman = ts
			}
			if sc.full {
				sc.counts.HumanPrompts++
				sc.prompts = append(sc.prompts, text)
				sc.ev.Prompt(text)
			}
		}
		if sc.full && !rec.Sidechain {
			rec.Message.Get("content").ForEach(func(_, blk gjson.Result) bool {
				if blk.Get("type").String() == "tool_result" {
					sc.ev.ToolResult(blk.Get("tool_use_id").String(), toolResultText(blk.Get("content")))
				}
				return true
			})
		}
	case claude.TypeAssistant:
		model, u, ok := rec.MainChainUsage()
		if ok {
			sc.tokens = claude.ContextTokens(u)
			sc.hasUsage = true
			sc.sum.Model = model
		}
		if sc.full && counted {
			if newMsg {
				// One content block per record: records sharing a message
				// id are one message and one turn of the curve.
				sc.curve = append(sc.curve, sc.tokens)
			} else if n := len(sc.curve); n > 0 {
				sc.curve[n-1] = sc.tokens
			}
			rec.Message.Get("content").ForEach(func(_, blk gjson.Result) bool {
				if blk.Get("type").String() == "tool_use" {
					sc.counts.ToolCalls++
					sc.ev.ToolUse(blk.Get("id").String(), blk.Get("name").String(), blk.Get("input"), sc.sum.Cwd)
				}
				return true
			})
		}
	}
}

func toolResultText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.String()
	}
	var b strings.Builder
	c.ForEach(func(_, blk gjson.Result) bool {
		if blk.Get("type").String() == "text" {
			b.WriteString(blk.Get("text").String())
			b.WriteByte('\n')
		}
		return true
	})
	return b.String()
}

func (sc *claudeScan) summary(size int64, mtime time.Time) summary {
	s := sc.sum
	s.Tokens, s.HasUsage, s.resetInTail = sc.tokens, sc.hasUsage, sc.resetInTail
	s.Records = sc.valid
	s.dropLosingTitles()
	s.clone()
	if sc.fileID != "" {
		// The file name is what `claude --resume` looks up; a fork's
		// copied records may still carry the parent's sessionId.
		s.ID = sc.fileID
	}
	switch {
	case size == 0:
		s.Problem = "empty transcript"
	case sc.valid == 0:
		s.Problem = fmt.Sprintf("no JSON records in the first and last bytes (%d unparseable lines)", sc.invalid)
	case s.Cwd == "":
		s.Problem = "no record names a cwd"
	}
	if s.Created.IsZero() {
		s.Created = mtime
	}
	if s.LastActivity.IsZero() {
		s.LastActivity = mtime
	}
	return s
}

// Get implements Reader: one streaming pass over the whole transcript.
func (r *Reader) Get(ctx context.Context, s agent.Session) (agent.Session, error) {
	f, err := r.opener()(s.Source)
	if err != nil {
		return s, fmt.Errorf("read %s: %w", s.Source, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return s, fmt.Errorf("read %s: %w", s.Source, err)
	}
	sc := newClaudeScan(strings.TrimSuffix(filepath.Base(s.Source), ".jsonl"), evidence.NewCollector(r.WorkRules))
	if err := scan.StreamLines(f, sc.line); err != nil {
		return s, fmt.Errorf("read %s: %w", s.Source, err)
	}
	sum := sc.summary(fi.Size(), fi.ModTime())
	if sum.Problem != "" {
		return s, fmt.Errorf("%s: %s", s.Source, sum.Problem)
	}
	full := r.session(s.Source, sum, nil)
	full.State, full.Runtime = s.State, s.Runtime
	sc.counts.Messages = sc.count.N
	n := sc.count.N
	full.Counts, full.Messages = &sc.counts, &n
	full.RecentPrompts = scan.LastN(sc.prompts, 5)
	full.ContextCurve = sc.curve
	full.Evidence = sc.ev.Finish(ctx, full)
	return full, nil
}
