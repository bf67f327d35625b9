package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"

	"github.com/tidwall/gjson"
)

// ClaudeReader reads Claude Code sessions under a config dir
// ($CLAUDE_CONFIG_DIR or ~/.claude).
type ClaudeReader struct {
	Dir   string
	Procs ProcessInspector
	Open  Opener
	Cache *Cache
	// HeadBytes and TailBytes bound what List reads per transcript.
	HeadBytes, TailBytes int64
	// Windows gives a model's context window.
	Windows agent.Windows
	// WorkRules find work references in show (nil: DefaultWorkRules).
	WorkRules []WorkRule
	// Now is the clock of the directory skip (nil: time.Now).
	Now func() time.Time
	// Live tunes the running check (the zero value inspects this machine).
	Live claude.LiveOptions
	// Counts gives the message counts a list cannot compute cheaply (nil:
	// such counts stay unknown).
	Counts CountIndex

	roots rootMemo
	stats *dirStats // set per listing by Catalog.List
}

// Harness implements Reader.
func (r *ClaudeReader) Harness() string { return ClaudeCode }

func (r *ClaudeReader) opener() Opener {
	if r.Open != nil {
		return r.Open
	}
	return OSOpen
}

func (r *ClaudeReader) budgets() (int64, int64) {
	h, t := r.HeadBytes, r.TailBytes
	if h <= 0 {
		h = DefaultHeadBytes
	}
	if t <= 0 {
		t = DefaultTailBytes
	}
	return h, t
}

// claudeSummary is what List learns from one transcript (and caches).
type claudeSummary struct {
	ID           string    `json:"id"`
	Cwd          string    `json:"cwd"`
	Branch       string    `json:"branch,omitempty"`
	Version      string    `json:"version,omitempty"`
	Entrypoint   string    `json:"entrypoint,omitempty"`
	Model        string    `json:"model,omitempty"`
	Created      time.Time `json:"created"`
	LastActivity time.Time `json:"lastActivity"`
	LastHuman    time.Time `json:"lastHuman"`
	FirstPrompt  string    `json:"firstPrompt,omitempty"`
	CustomTitle  string    `json:"customTitle,omitempty"`
	AITitle      string    `json:"aiTitle,omitempty"`
	LastPrompt   string    `json:"lastPrompt,omitempty"`
	Summary      string    `json:"summary,omitempty"`
	Tokens       int64     `json:"tokens"`
	HasUsage     bool      `json:"hasUsage"`
	Records      int       `json:"records"`
	Problem      string    `json:"problem,omitempty"`
	Msgs         msgState  `json:"-"`
	// resetInTail: the read's tail held a compact boundary (not cached:
	// only the read that found it decides whether to read further back).
	resetInTail bool
}

// clone copies every string so the summary no longer pins the lines (or
// the read buffer) they were sliced from: kept for thousands of sessions,
// those would cost hundreds of megabytes.
func (s *claudeSummary) clone() {
	for _, p := range []*string{&s.ID, &s.Cwd, &s.Branch, &s.Version, &s.Entrypoint, &s.Model, &s.FirstPrompt,
		&s.CustomTitle, &s.AITitle, &s.LastPrompt, &s.Summary} {
		*p = strings.Clone(*p)
	}
}

// Directory skip. A warm list takes a project directory's file list and
// its transcripts' cached summaries without listing it or stat-ing them
// when all of these hold:
//   - the directory's mtime is the recorded one: no file was created,
//     removed or renamed in it since (the mtime is read before the listing,
//     and one within dirRacyWindow of the listing is not trusted, so a
//     change during the listing is not missed);
//   - its newest transcript was modified more than dirHotWindow ago:
//     Claude Code appends to a live transcript in place, which changes the
//     file's mtime but not the directory's;
//   - it was fully checked less than dirRecheck ago.
//
// A transcript that may be running (claude.LiveSet: its sessions/<pid>.json,
// a process started for it or holding it open, a Claude Code process in
// its project) is stat-ed even in a trusted directory. The trade-off: an append to a transcript
// idle for more than a day, made by a process no longer running, in a
// directory nothing else changed, shows within dirRecheck (one full
// stat-ing list an hour) instead of at once.
const (
	dirHotWindow  = 24 * time.Hour
	dirRecheck    = time.Hour
	dirRacyWindow = 2 * time.Second
)

// claudeDir is one project directory of a listing: its transcripts are
// paths[start:end].
type claudeDir struct {
	path       string
	rec        dirRecord
	trusted    bool
	start, end int
}

// dropLosingTitles clears the title candidates session() would not pick,
// so the cached record holds one title, not four (custom > AI > last
// prompt > summary; the first prompt is kept, sessions report it).
func (s *claudeSummary) dropLosingTitles() {
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
func (r *ClaudeReader) List(ctx context.Context, _ ListOptions) ([]Session, []Diagnostic, error) {
	projects := claude.ProjectsDir(r.Dir)
	entries, err := os.ReadDir(projects)
	if err != nil {
		if isNotExist(err) {
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
		diags []Diagnostic
		paths []string
		dirs  []claudeDir
	)
	links := &linkGuard{projects: projects}
	for _, e := range entries {
		if !links.dir(e) {
			continue
		}
		d := claudeDir{path: filepath.Join(projects, e.Name()), start: len(paths)}
		names, err := r.dirFiles(&d, now, links)
		if err != nil {
			diags = append(diags, Diagnostic{Harness: ClaudeCode, Path: d.path, Problem: "unreadable project directory: " + err.Error()})
			continue
		}
		paths = joinNames(paths, d.path, names)
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
		r.Cache.StoreDir(d.path, keepHotRecord(d.rec, old, hadOld && !d.trusted, now.UnixNano()))
	}
	for i, path := range paths {
		switch res := &results[i]; {
		case res.err != nil:
			diags = append(diags, Diagnostic{Harness: ClaudeCode, Path: path, Problem: res.err.Error()})
		case res.sum.Problem != "":
			diags = append(diags, Diagnostic{Harness: ClaudeCode, Path: path, Problem: res.sum.Problem})
		}
	}
	out := r.sessions(paths, results, running)
	if err := r.Cache.Save(); err != nil {
		diags = append(diags, Diagnostic{Harness: ClaudeCode, Path: r.Cache.path, Problem: "cache not saved: " + err.Error()})
	}
	return out, diags, nil
}

// sessions builds the sessions of the transcripts summarized without
// error, in order, in parallel (each depends only on its own summary;
// 8,500 took ~20 ms on one core): in place in one slice, which is then
// closed up over the failures, if any.
func (r *ClaudeReader) sessions(paths []string, results []summaryResult, running *claude.LiveSet) []Session {
	out := make([]Session, len(paths), joinRoom(len(paths)))
	ok := func(i int) bool { return results[i].err == nil && results[i].sum.Problem == "" }
	fill := func(lo, hi int) {
		// A directory's sessions come together and mostly share their
		// cwd: resolved once for a run of them, not looked up in the
		// shared memo (a lock and three lookups) for each.
		var last struct {
			cwd, root, origin string
			ok                bool
		}
		blocks := &valueBlocks{}
		for i := lo; i < hi; i++ {
			if ok(i) {
				if cwd := results[i].sum.Cwd; !last.ok || cwd != last.cwd {
					last.cwd, last.root, last.origin, last.ok = cwd, r.roots.get(cwd), r.roots.origin(cwd), true
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
func (r *ClaudeReader) dirFiles(d *claudeDir, now time.Time, links *linkGuard) ([]string, error) {
	fi, err := os.Stat(d.path)
	if err != nil {
		return nil, err
	}
	mtime := fi.ModTime().UnixNano()
	r.stats.put(d.path, mtime)
	if rec, ok := r.Cache.Dir(d.path); ok && rec.MTime == mtime &&
		mtime < rec.Checked-int64(dirRacyWindow) &&
		now.UnixNano()-rec.Checked < int64(dirRecheck) &&
		now.UnixNano()-rec.Newest > int64(dirHotWindow) {
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
		if name := e.Name(); claude.IsSessionFile(name) && links.file(d.path, e) {
			names = append(names, name)
		}
	}
	d.rec = dirRecord{MTime: mtime, Checked: checked, Files: names}
	return names, nil
}

// keepHotRecord is the record to store for a directory this listing read
// (fresh) when it had one before (old, compared when cmp): a directory
// written in the last day is not trusted whatever its record, so while it
// stays so and nothing in the record but the check time changed, the old
// record is kept — the cache is not rewritten for a new check time alone.
func keepHotRecord(fresh, old dirRecord, cmp bool, now int64) dirRecord {
	if cmp && old.MTime == fresh.MTime && old.Newest == fresh.Newest &&
		slices.Equal(old.Files, fresh.Files) && now-fresh.Newest <= int64(dirHotWindow) {
		return old
	}
	return fresh
}

// summaryResult is what summarizing one transcript gave.
type summaryResult struct {
	// sum is the cache's own value for a transcript taken from the cache
	// (not copied: 8,500 summaries copied were 3 MB a warm list wrote,
	// page faults included); never changed in place.
	sum         *claudeSummary
	size, mtime int64
	err         error
}

// summarizeAll summarizes every path on every core: files are independent.
// A file of a trusted directory is taken from the cache without a stat,
// unless a live process names it.
func (r *ClaudeReader) summarizeAll(ctx context.Context, paths []string, dirs []claudeDir, running *claude.LiveSet) ([]summaryResult, error) {
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
			if sum, sz, mt, ok := r.Cache.claudeAny(paths[i]); ok {
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
func (r *ClaudeReader) fillCounts(paths []string, results []summaryResult) {
	var missing []string
	for i := range results {
		if res := &results[i]; res.err == nil && res.sum.Problem == "" && !res.sum.Msgs.Known {
			missing = append(missing, paths[i])
		}
	}
	got := r.Cache.fillCounts(r.Counts, missing)
	for i := range results {
		if mc, ok := got[paths[i]]; ok {
			sum := *results[i].sum // the cache's, maybe: not changed in place
			sum.Msgs.Known, sum.Msgs.Count = true, mc
			results[i].sum = &sum
		}
	}
}

func (r *ClaudeReader) summarize(path string) (claudeSummary, int64, error) {
	sum, _, mtime, err := r.summarizeSized(path)
	return sum, mtime, err
}

// summarizeSized is summarize that also returns the size the summary is
// of.
func (r *ClaudeReader) summarizeSized(path string) (claudeSummary, int64, int64, error) {
	var sum, prev claudeSummary
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
		return claudeSummary{}, 0, 0, fmt.Errorf("unreadable: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return claudeSummary{}, 0, 0, fmt.Errorf("unreadable: %w", err)
	}
	h, t := r.budgets()
	c, release, err := readHeadTail(f, h, t)
	defer release()
	if err != nil {
		return claudeSummary{}, 0, 0, fmt.Errorf("unreadable: %w", err)
	}
	whole := c.tail == nil && c.rawTail == nil
	sum, counted := r.scanChunks(path, c, whole)
	msgs := nextMsgState(ClaudeCode, f, fi, c, whole, counted, prev.Msgs, hadPrev)
	// With the default budgets, a file that was cut and lacks what only a
	// wider read can give is read again once with the Max budgets: the
	// whole of both when the head named no cwd, else only the bytes
	// before the tail (the head was enough; re-reading it cost bytes).
	if r.HeadBytes <= 0 && r.TailBytes <= 0 && fi.Size() > h+t {
		switch {
		case sum.Cwd == "":
			sum, err = r.scan(f, path, MaxHeadBytes, MaxTailBytes)
		case !sum.HasUsage && !sum.resetInTail:
			tail, _, werr := widenTail(f, c, MaxTailBytes)
			if werr != nil {
				return claudeSummary{}, 0, 0, fmt.Errorf("unreadable: %w", werr)
			}
			c.tail = tail
			sum, _ = r.scanChunks(path, c, false)
		}
	}
	if err != nil {
		return claudeSummary{}, 0, 0, err
	}
	sum.Msgs = msgs
	r.Cache.Store(path, fi.Size(), fi.ModTime(), sum)
	return sum, fi.Size(), fi.ModTime().UnixNano(), nil
}

func (r *ClaudeReader) scan(f File, path string, h, t int64) (claudeSummary, error) {
	c, release, err := readHeadTail(f, h, t)
	defer release()
	if err != nil {
		return claudeSummary{}, fmt.Errorf("unreadable: %w", err)
	}
	sum, _ := r.scanChunks(path, c, false)
	return sum, nil
}

// scanChunks summarizes what was read; with count (the file was read
// whole, in c.head) it also counts the messages of its complete lines.
func (r *ClaudeReader) scanChunks(path string, c chunks, count bool) (claudeSummary, MessageCount) {
	sc := newClaudeScan(strings.TrimSuffix(filepath.Base(path), ".jsonl"), nil)
	var mc MessageCount
	if count {
		scanCounting(c.head, &mc, &sc.count, sc.line)
	} else {
		eachLine(c.head, sc.line)
	}
	sc.endHead()
	eachLine(c.tail, sc.line)
	return sc.summary(c.size, c.modTime), mc
}

func (r *ClaudeReader) session(path string, sum claudeSummary, running *claude.LiveSet) Session {
	var s Session
	r.sessionInto(&s, path, &sum, running, r.roots.get(sum.Cwd), r.roots.origin(sum.Cwd), nil)
	return s
}

// sessionInto fills s (zero) with the session of sum, given sum.Cwd's
// identity root and origin id; the values s points to come from blocks
// (nil: allocated one by one).
func (r *ClaudeReader) sessionInto(s *Session, path string, sum *claudeSummary, running *claude.LiveSet, root, origin string, blocks *valueBlocks) {
	*s = Session{
		Harness:      ClaudeCode,
		ID:           sum.ID,
		Cwd:          sum.Cwd,
		IdentityRoot: root,
		GitOrigin:    origin,
		GitBranch:    sum.Branch,
		Created:      sum.Created,
		LastActivity: sum.LastActivity,
		FirstPrompt:  sum.FirstPrompt,
		State:        StateResumable,
		Source:       path,
		CLIVersion:   sum.Version,
		Origin:       sum.Entrypoint,
		Model:        sum.Model,
		Resume:       ResumeSpec{Argv: blocks.strings("claude", "--resume", sum.ID), Dir: sum.Cwd},
	}
	if sum.Msgs.Known {
		s.Messages = blocks.int(sum.Msgs.Count.N)
	}
	if s.GitBranch == "HEAD" {
		// Claude records "HEAD" outside a branch (and outside git).
		s.GitBranch = ""
	}
	if !sum.LastHuman.IsZero() {
		s.LastHumanActivity = blocks.time(sum.LastHuman)
	}
	switch {
	case sum.CustomTitle != "":
		s.Title, s.TitleSource = sum.CustomTitle, TitleCustom
	case sum.AITitle != "":
		s.Title, s.TitleSource = sum.AITitle, TitleAI
	case sum.LastPrompt != "":
		s.Title, s.TitleSource = sum.LastPrompt, TitleLastPrompt
	case sum.Summary != "":
		s.Title, s.TitleSource = sum.Summary, TitleSummary
	case sum.FirstPrompt != "":
		s.Title, s.TitleSource = sum.FirstPrompt, TitleFirstPrompt
	default:
		s.Title, s.TitleSource = cwdTitle(sum.Cwd), TitleCwd
	}
	s.Title = oneLine(s.Title, 200)
	if sum.HasUsage {
		w, src := r.Windows.For(sum.Model, 0, 0)
		s.Context = blocks.context(ContextUsage{Tokens: sum.Tokens, Window: w, WindowKnown: agent.Known(src), Percent: agent.Percent(sum.Tokens, w)})
	}
	if live := running.Check(sum.ID, path); live.Live() {
		s.State = StateRunning
		s.Runtime = &Runtime{PID: live.PID}
		if p := live.Session; p != nil {
			s.Runtime = &Runtime{PID: p.PID, Status: p.Status, TmuxTarget: p.Tmux, Tmux: tmuxSessionName(p.Tmux)}
		} else if live.Possible {
			s.Runtime.Status = StatusPossibly
		}
	}
	s.NormalizeTimes()
}

// running looks once at the live processes (sessions/<pid>.json and
// /proc), for every session of this listing.
func (r *ClaudeReader) running() *claude.LiveSet {
	procs := r.Procs
	if procs == nil {
		procs = OSProcesses{}
	}
	o := r.Live
	o.Alive = procs.Alive
	return claude.ScanLive(r.Dir, o)
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

func newContext(tokens, window int64, known bool) *ContextUsage {
	return &ContextUsage{Tokens: tokens, Window: window, WindowKnown: known, Percent: agent.Percent(tokens, window)}
}

// oneLine collapses whitespace and cuts s to max runes, for titles.
func oneLine(s string, max int) string {
	if singleSpaced(s) {
		if len(s) <= max {
			return s // already one line: no allocation (every title, every warm list)
		}
		// ASCII: a rune a byte. The cut below, without splitting and
		// joining the words and converting to runes (a fifth of the
		// titles of a warm list are cut).
		return s[:max-1] + "…"
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// singleSpaced reports whether strings.Fields would find s's words
// separated by single ASCII spaces, with none around them: ASCII with no
// other white space, and no Unicode white space either (any non-ASCII
// byte says no, to stay simple).
func singleSpaced(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return false
		}
	}
	return true
}

// claudeScan extracts a summary from transcript lines in file order. With
// full set it also collects what Get reports.
type claudeScan struct {
	fileID  string
	full    bool
	inTail  bool
	sum     claudeSummary
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
	count *MessageCount

	// full read only
	prompts []string
	counts  Counts
	curve   []int64
	ev      *evidenceCollector
}

func newClaudeScan(fileID string, ev *evidenceCollector) *claudeScan {
	sc := &claudeScan{fileID: fileID, full: ev != nil, ev: ev}
	if sc.full {
		sc.count = &MessageCount{}
	}
	return sc
}

func (sc *claudeScan) endHead() { sc.inTail = true }

func (sc *claudeScan) line(b []byte) {
	rec, ok := claude.ParseRec(bytesString(b, !sc.full))
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
		counted, newMsg = countClaude(sc.count, rec)
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
				sc.sum.FirstPrompt = oneLine(text, 500)
			}
			if ts.After(sc.sum.LastHuman) {
				sc.sum.LastHuman = ts
			}
			if sc.full {
				sc.counts.HumanPrompts++
				sc.prompts = append(sc.prompts, text)
				sc.ev.prompt(text)
			}
		}
		if sc.full && !rec.Sidechain {
			rec.Message.Get("content").ForEach(func(_, blk gjson.Result) bool {
				if blk.Get("type").String() == "tool_result" {
					sc.ev.toolResult(blk.Get("tool_use_id").String(), toolResultText(blk.Get("content")))
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
					sc.ev.toolUse(blk.Get("id").String(), blk.Get("name").String(), blk.Get("input"), sc.sum.Cwd)
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

func (sc *claudeScan) summary(size int64, mtime time.Time) claudeSummary {
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
func (r *ClaudeReader) Get(ctx context.Context, s Session) (Session, error) {
	f, err := r.opener()(s.Source)
	if err != nil {
		return s, fmt.Errorf("read %s: %w", s.Source, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return s, fmt.Errorf("read %s: %w", s.Source, err)
	}
	sc := newClaudeScan(strings.TrimSuffix(filepath.Base(s.Source), ".jsonl"), newEvidenceCollector(r.WorkRules))
	if err := streamLines(f, sc.line); err != nil {
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
	full.RecentPrompts = lastN(sc.prompts, 5)
	full.ContextCurve = sc.curve
	full.Evidence = sc.ev.finish(ctx, full)
	return full, nil
}

func lastN(ss []string, n int) []string {
	if len(ss) > n {
		ss = ss[len(ss)-n:]
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = oneLine(s, 500)
	}
	return out
}
