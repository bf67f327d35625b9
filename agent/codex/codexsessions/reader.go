// Package codexsessions is Codex's session reader: it lists the threads
// under $CODEX_HOME from the state database (its rows cached until the
// database changes) or, without one, from the rollout files, each with a
// bounded head and tail of its rollout (cached by (path, size, mtime),
// with the day-directory skip); reads a rollout whole for show; and gives
// search the texts of its records. Only tether links it (agent.Lister);
// tether-hot's agent is agent/codex alone. The SQLite driver is
// registered by the binary (catalog links it), not here.
package codexsessions

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/filecache"
	jsonscan "github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/agent/scan"

	"github.com/tidwall/gjson"
)

// Reader reads Codex threads under $CODEX_HOME (or ~/.codex): the
// state database when there is one, else the rollout files.
type Reader struct {
	Dir string
	// Procs finds processes holding rollouts open (running threads);
	// nil: no thread is reported running.
	Procs scan.OpenFileFinder
	Open  agent.Opener
	Cache *Cache
	// HeadBytes and TailBytes bound what List reads per rollout.
	HeadBytes, TailBytes int64
	// Windows gives a model's context window.
	Windows agent.Windows
	// WorkRules find work references in show (nil: DefaultWorkRules).
	WorkRules []agent.WorkRule
	// Counts gives the message counts a list cannot compute cheaply (nil:
	// such counts stay unknown).
	Counts agent.CountIndex
	// Now is the clock of the day-directory skip (nil: time.Now).
	Now func() time.Time

	roots evidence.RootMemo
	stats *scan.DirStats // set per listing (ShareStats) by the catalog
	// UsageCachePath is CountUsage's cache ("": beside Cache's file).
	UsageCachePath string
	usage          *filecache.UsageCache // opened by CountUsage
}

// Harness implements Reader.
func (r *Reader) Harness() string { return agent.Codex }

func (r *Reader) opener() agent.Opener {
	if r.Open != nil {
		return r.Open
	}
	return agent.OSOpen
}

// threadRow is one thread as the state DB (or a rollout head) describes it.
type threadRow struct {
	ID, RolloutPath, Cwd, Source, Title, Name, FirstUser string
	GitSHA, GitBranch, GitOrigin, CLIVersion, Model      string
	Created, Updated                                     time.Time
	Archived                                             bool
}

// List implements Reader.
func (r *Reader) List(ctx context.Context, opts agent.ListOptions) ([]agent.Session, []agent.Diagnostic, error) {
	if fi, err := os.Stat(r.Dir); err != nil {
		if scan.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read %s: %w", r.Dir, err)
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("read %s: not a directory", r.Dir)
	}
	var (
		rows  []threadRow
		diags []agent.Diagnostic
	)
	fromDB := false
	if db := codex.StateDB(r.Dir); db != "" {
		var err error
		rows, err = r.threads(ctx, db)
		if err != nil {
			diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: db, Problem: err.Error() + "; falling back to rollout files"})
		} else {
			fromDB = true
		}
	}
	if !fromDB {
		var d []agent.Diagnostic
		rows, d = r.scanRollouts(ctx, opts)
		diags = append(diags, d...)
	}
	days := r.newDayDirs(fromDB)
	var keep []threadRow
	for _, row := range rows {
		if row.Archived && !opts.All {
			days.keep(row) // its cache entry stays for the next --all
			continue
		}
		if row.ID == "" || row.Cwd == "" {
			diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: row.RolloutPath, Problem: "thread without id or cwd"})
			continue
		}
		keep = append(keep, row)
	}
	// Running threads first: the day-directory skip stats their rollouts.
	var open map[string]int
	if r.Procs != nil {
		paths := map[string]bool{}
		for _, row := range keep {
			if row.RolloutPath != "" && !row.Archived {
				paths[row.RolloutPath] = true
			}
		}
		open = r.Procs.OpenBy(paths)
	}
	out := make([]agent.Session, 0, scan.JoinRoom(len(keep)))
	for _, row := range keep {
		var (
			tail        rolloutTail
			size, mtime int64
			ok          bool
		)
		if row.RolloutPath != "" {
			tail, size, mtime, ok = days.tail(row, open[row.RolloutPath] != 0)
		}
		out = append(out, r.sessionFrom(row, tail, ok))
		if ok {
			// For the search index, which then need not stat it again.
			out[len(out)-1].SourceSize, out[len(out)-1].SourceMTime = size, mtime
		}
	}
	days.store()
	r.fillCounts(out)
	for i := range out {
		if pid, running := open[out[i].Source]; running {
			out[i].State = agent.StateRunning
			out[i].Runtime = &agent.Runtime{PID: pid}
		}
	}
	if err := r.Cache.Save(); err != nil {
		diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: r.Cache.Path(), Problem: "cache not saved: " + err.Error()})
	}
	return out, diags, ctx.Err()
}

// threadColumns are the columns List uses; any the DB lacks read as NULL.
var threadColumns = []string{
	"id", "rollout_path", "cwd", "source", "title", "name", "first_user_message",
	"git_sha", "git_branch", "git_origin_url", "cli_version", "model",
	"created_at", "updated_at", "created_at_ms", "updated_at_ms", "archived",
}

// queryThreads reads every thread in one query, after probing which
// columns this Codex version has.
func queryThreads(ctx context.Context, path string) ([]threadRow, error) {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_pragma=busy_timeout(2000)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	have := map[string]bool{}
	cols, err := db.QueryContext(ctx, "PRAGMA table_info(threads)")
	if err != nil {
		return nil, fmt.Errorf("probe threads table: %w", err)
	}
	for cols.Next() {
		var (
			cid, notnull, pk int
			name, typ        string
			dflt             sql.NullString
		)
		if err := cols.Scan(&cid, &name, &typ, &notnull, &dflt, &pk); err != nil {
			cols.Close()
			return nil, fmt.Errorf("probe threads table: %w", err)
		}
		have[name] = true
	}
	cols.Close()
	for _, need := range []string{"id", "cwd"} {
		if !have[need] {
			return nil, fmt.Errorf("threads table has no %s column (unfamiliar schema)", need)
		}
	}
	sel := make([]string, len(threadColumns))
	for i, c := range threadColumns {
		if have[c] {
			sel[i] = `"` + c + `"`
		} else {
			sel[i] = "NULL"
		}
	}
	rs, err := db.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM threads")
	if err != nil {
		return nil, fmt.Errorf("query threads: %w", err)
	}
	defer rs.Close()
	var (
		out                     []threadRow
		s                       [12]sql.NullString
		ca, ua, cams, uams, arc sql.NullInt64
	)
	dst := make([]any, 0, len(s)+5) // one set of destinations for every row
	for i := range s {
		dst = append(dst, &s[i])
	}
	dst = append(dst, &ca, &ua, &cams, &uams, &arc)
	for rs.Next() {
		// Scan sets every destination (a NULL resets a Null* value).
		if err := rs.Scan(dst...); err != nil {
			return nil, fmt.Errorf("read threads: %w", err)
		}
		row := threadRow{
			ID: s[0].String, RolloutPath: s[1].String, Cwd: s[2].String, Source: s[3].String, Title: s[4].String,
			Name: s[5].String, FirstUser: s[6].String, GitSHA: s[7].String, GitBranch: s[8].String,
			GitOrigin: s[9].String, CLIVersion: s[10].String, Model: s[11].String, Archived: arc.Int64 != 0,
		}
		row.Created = pickTime(cams, ca)
		row.Updated = pickTime(uams, ua)
		out = append(out, row)
	}
	return out, rs.Err()
}

func pickTime(ms, s sql.NullInt64) time.Time {
	switch {
	case ms.Valid && ms.Int64 > 0:
		return time.UnixMilli(ms.Int64).UTC()
	case s.Valid && s.Int64 > 0:
		return time.Unix(s.Int64, 0).UTC()
	}
	return time.Time{}
}

// rolloutTail is what List learns from a rollout's head and tail (cached).
type rolloutTail struct {
	ID, Cwd, Source, CLIVersion, Model, GitBranch, GitSHA, GitOrigin string
	FirstPrompt                                                      string
	Created, Last, LastHuman                                         time.Time
	Tokens, Window                                                   int64
	HasUsage                                                         bool
	Valid                                                            int
	Size                                                             int64
	Msgs                                                             scan.MsgState
	// resetInTail: the read's tail was compacted (not cached: only the
	// read that found it decides whether to read further back).
	resetInTail bool
}

// clone copies the strings so they no longer pin the read buffer.
func (t *rolloutTail) clone() {
	for _, p := range []*string{&t.ID, &t.Cwd, &t.Source, &t.CLIVersion, &t.Model, &t.GitBranch, &t.GitSHA, &t.GitOrigin, &t.FirstPrompt} {
		*p = strings.Clone(*p)
	}
}

// fillCounts takes the message counts the listing lacks from r.Counts.
func (r *Reader) fillCounts(out []agent.Session) {
	var missing []string
	for _, s := range out {
		if s.Messages == nil && s.Source != "" && s.State == agent.StateResumable {
			missing = append(missing, s.Source)
		}
	}
	got := r.Cache.FillCounts(r.Counts, missing)
	for i := range out {
		if mc, ok := got[out[i].Source]; ok && out[i].Messages == nil {
			n := mc.N
			out[i].Messages = &n
		}
	}
}

func (r *Reader) readRollout(path string) (rolloutTail, error) {
	t, _, err := r.readRolloutInfo(path)
	return t, err
}

func (r *Reader) readRolloutInfo(path string) (rolloutTail, fs.FileInfo, error) {
	var t, prev rolloutTail
	hadPrev := false
	// A warm list is one stat per file: open only on a cache miss.
	if r.Cache != nil {
		if fi, err := os.Stat(path); err == nil && r.Cache.Lookup(path, fi.Size(), fi.ModTime(), &t) {
			return t, fi, nil
		}
		// What the last read knew: a count to go on from.
		_, hadPrev = r.Cache.LookupAny(path, &prev)
	}
	f, err := r.opener()(path)
	if err != nil {
		return rolloutTail{}, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return rolloutTail{}, nil, err
	}
	h, tl := r.HeadBytes, r.TailBytes
	if h <= 0 {
		h = scan.DefaultHeadBytes
	}
	if tl <= 0 {
		tl = scan.DefaultTailBytes
	}
	c, release, err := scan.ReadHeadTail(f, h, tl)
	defer release()
	if err != nil {
		return rolloutTail{}, nil, err
	}
	whole := c.Tail == nil && c.RawTail == nil
	t, counted := scanRolloutChunks(c, whole)
	msgs := scan.NextMsgState(f, fi, c, whole, counted, prev.Msgs, hadPrev, countLine)
	// As for Claude: a cut file missing its meta is read again once with
	// the Max budgets; one missing only its last usage gets the bytes
	// before its tail, without the head and tail again.
	if r.HeadBytes <= 0 && r.TailBytes <= 0 && fi.Size() > h+tl {
		switch {
		case t.ID == "":
			if t, err = scanRollout(f, scan.MaxHeadBytes, scan.MaxTailBytes); err != nil {
				return rolloutTail{}, nil, err
			}
		case !t.HasUsage && !t.resetInTail:
			tail, _, err := scan.WidenTail(f, c, scan.MaxTailBytes)
			if err != nil {
				return rolloutTail{}, nil, err
			}
			c.Tail = tail
			t, _ = scanRolloutChunks(c, false)
		}
	}
	t.Msgs = msgs
	r.Cache.Store(path, fi.Size(), fi.ModTime(), t)
	return t, fi, nil
}

func scanRollout(f agent.File, h, tl int64) (rolloutTail, error) {
	c, release, err := scan.ReadHeadTail(f, h, tl)
	defer release()
	if err != nil {
		return rolloutTail{}, err
	}
	t, _ := scanRolloutChunks(c, false)
	return t, nil
}

// scanRolloutChunks summarizes what was read; with count (the file was
// read whole, in c.head) it also counts the messages of its complete
// lines.
func scanRolloutChunks(c scan.Chunks, count bool) (rolloutTail, agent.MessageCount) {
	sc := &rolloutScan{}
	var mc agent.MessageCount
	if count {
		scan.ScanCounting(c.Head, &mc, &sc.count, sc.line)
	} else {
		scan.EachLine(c.Head, sc.line)
	}
	sc.inTail = true
	scan.EachLine(c.Tail, sc.line)
	t := sc.t
	t.clone()
	t.Size = c.Size
	return t, mc
}

// rolloutScan extracts what it can from rollout lines in file order.
type rolloutScan struct {
	t      rolloutTail
	inTail bool
	// count, when set, counts messages (a full read, or a list's read of
	// a whole rollout).
	count *agent.MessageCount
	// full read only
	full    bool
	prompts []string // from response_item user messages
	events  []string // from event_msg user_message (older versions)
	counts  agent.Counts
	curve   []int64
	ev      *evidence.Collector
}

func (sc *rolloutScan) line(b []byte) {
	// List reads into a fresh buffer per file: parse it in place (the
	// strings kept are cloned in readRollout). Get streams through a
	// reused buffer: copy.
	js := scan.BytesString(b, !sc.full)
	// Only the envelope is taken here; the payload (a tool's whole
	// output, for function_call_output) is decoded only as far as needed.
	var tsRaw, typ string
	var p gjson.Result
	if !jsonscan.EachTop(js, func(k, raw string) bool {
		switch k {
		case "timestamp":
			tsRaw = gjson.Parse(raw).Str
		case "type":
			typ = gjson.Parse(raw).Str
		case "payload":
			p = gjson.Parse(raw)
		}
		return true
	}) {
		return
	}
	sc.t.Valid++
	if sc.count != nil {
		countItem(sc.count, typ, p)
	}
	ts, _ := time.Parse(time.RFC3339Nano, tsRaw)
	if !ts.IsZero() {
		if sc.t.Created.IsZero() || ts.Before(sc.t.Created) {
			sc.t.Created = ts
		}
		if ts.After(sc.t.Last) {
			sc.t.Last = ts
		}
	}
	switch typ {
	case "session_meta":
		if sc.t.ID == "" {
			sc.t.ID = p.Get("id").String()
			sc.t.Cwd = p.Get("cwd").String()
			if src := p.Get("source"); src.Type == gjson.String {
				sc.t.Source = src.String()
			} else {
				sc.t.Source = src.Raw // e.g. {"custom":"atlas"}
			}
			sc.t.CLIVersion = p.Get("cli_version").String()
			sc.t.GitBranch = p.Get("git.branch").String()
			sc.t.GitSHA = p.Get("git.commit_hash").String()
			sc.t.GitOrigin = p.Get("git.repository_url").String()
		}
	case "turn_context":
		if m := p.Get("model").String(); m != "" {
			sc.t.Model = m
		}
	case "event_msg":
		switch p.Get("type").String() {
		case codex.EventTokenCount:
			u, ok := codex.TokenCount(p.Get("info"))
			if ok {
				sc.t.Tokens = u.Tokens
				sc.t.HasUsage = true
				if sc.full {
					sc.curve = append(sc.curve, sc.t.Tokens)
				}
			}
			if u.Window > 0 {
				sc.t.Window = u.Window
			}
		case "user_message":
			sc.human(ts, p.Get("message").String(), true)
		}
	case codex.TypeCompacted:
		sc.t.Tokens, sc.t.HasUsage = 0, false
		sc.t.resetInTail = sc.t.resetInTail || sc.inTail
	case "response_item":
		switch p.Get("type").String() {
		case "message":
			role := p.Get("role").String()
			if role == "user" {
				if text, ok := humanText(p); ok {
					sc.human(ts, text, false)
				}
			}
		case "function_call", "custom_tool_call", "local_shell_call":
			if sc.full {
				sc.counts.ToolCalls++
				args := p.Get("arguments")
				input := gjson.Parse(args.String())
				if !args.Exists() {
					input = p.Get("input")
					if p.Get("action").Exists() {
						input = p.Get("action")
					}
				}
				name := p.Get("name").String()
				if name == "" {
					name = "local_shell"
				}
				sc.ev.ToolUse(p.Get("call_id").String(), name, input, sc.t.Cwd)
			}
		case "function_call_output", "custom_tool_call_output":
			if sc.full {
				out := p.Get("output")
				text := out.String()
				if out.IsObject() {
					text = out.Get("content").String()
				}
				sc.ev.ToolResult(p.Get("call_id").String(), text)
			}
		}
	}
}

func (sc *rolloutScan) human(ts time.Time, text string, fromEvent bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if sc.t.FirstPrompt == "" {
		sc.t.FirstPrompt = scan.OneLine(text, 500)
	}
	if ts.After(sc.t.LastHuman) {
		sc.t.LastHuman = ts
	}
	if sc.full {
		if fromEvent {
			sc.events = append(sc.events, text)
		} else {
			sc.prompts = append(sc.prompts, text)
		}
	}
}

// humanText returns the typed text of a user message: newer rollouts
// mark it with content_item_kinds "user.text"; older ones are recognised by
// not being one of the harness's <tag> wrappers (environment_context,
// user_instructions, …) or an AGENTS.md injection.
func humanText(p gjson.Result) (string, bool) {
	kinds := p.Get("internal_chat_message_metadata_passthrough.content_item_kinds")
	var parts []string
	i := 0
	p.Get("content").ForEach(func(_, blk gjson.Result) bool {
		defer func() { i++ }()
		if t := blk.Get("type").String(); t != "input_text" && t != "text" {
			return true
		}
		text := blk.Get("text").String()
		if kinds.IsArray() {
			if kinds.Get(strconv.Itoa(i)).String() == "user.text" {
				parts = append(parts, text)
			}
			return true
		}
		tt := strings.TrimSpace(text)
		if strings.HasPrefix(tt, "<") || strings.HasPrefix(tt, "# AGENTS.md") {
			return true
		}
		parts = append(parts, text)
		return true
	})
	s := strings.TrimSpace(strings.Join(parts, "\n"))
	return s, s != ""
}

func (r *Reader) session(row threadRow) agent.Session {
	var (
		tail rolloutTail
		ok   bool
	)
	if row.RolloutPath != "" {
		t, err := r.readRollout(row.RolloutPath)
		tail, ok = t, err == nil
	}
	return r.sessionFrom(row, tail, ok)
}

// sessionFrom is the session of row, with what its rollout's head and
// tail gave when ok.
func (r *Reader) sessionFrom(row threadRow, t rolloutTail, ok bool) agent.Session {
	s := agent.Session{
		Harness:      agent.Codex,
		ID:           row.ID,
		Cwd:          row.Cwd,
		IdentityRoot: r.roots.Get(row.Cwd),
		GitBranch:    row.GitBranch,
		GitSHA:       row.GitSHA,
		Created:      row.Created,
		LastActivity: row.Updated,
		Archived:     row.Archived,
		State:        agent.StateUnknown,
		Source:       row.RolloutPath,
		CLIVersion:   row.CLIVersion,
		Origin:       row.Source,
		Model:        row.Model,
		Resume:       agent.ResumeSpec{Argv: resumeArgv(row.ID), Dir: row.Cwd},
	}
	if row.GitOrigin != "" {
		s.GitOrigin = evidence.RemoteID(row.GitOrigin)
	}
	var tail rolloutTail
	if ok {
		tail = t
		if t.Size > 0 {
			// A rollout that exists and has records can be resumed.
			// Codex leaves no pid file: a thread is running while a
			// process holds its rollout open (List).
			s.State = agent.StateResumable
		}
		if t.Msgs.Known {
			n := t.Msgs.Count.N
			s.Messages = &n
		}
	}
	if s.Created.IsZero() {
		s.Created = tail.Created
	}
	if tail.Last.After(s.LastActivity) {
		s.LastActivity = tail.Last
	}
	if !tail.LastHuman.IsZero() {
		t := tail.LastHuman
		s.LastHumanActivity = &t
	}
	if s.Model == "" {
		s.Model = tail.Model
	}
	s.FirstPrompt = row.FirstUser
	if s.FirstPrompt == "" {
		s.FirstPrompt = tail.FirstPrompt
	}
	switch {
	case row.Name != "":
		s.Title, s.TitleSource = row.Name, agent.TitleName
	case row.Title != "":
		s.Title, s.TitleSource = row.Title, agent.TitleThread
	case s.FirstPrompt != "":
		s.Title, s.TitleSource = s.FirstPrompt, agent.TitleFirstUser
	default:
		s.Title, s.TitleSource = agent.CwdTitle(row.Cwd), agent.TitleCwd
	}
	s.Title = scan.OneLine(s.Title, 200)
	s.FirstPrompt = scan.OneLine(s.FirstPrompt, 500)
	if tail.HasUsage {
		w, src := r.Windows.For(s.Model, 0, tail.Window)
		s.Context = newContext(tail.Tokens, w, agent.Known(src))
	}
	s.NormalizeTimes()
	return s
}

// scanRollouts lists rollout files when there is no state DB.
func (r *Reader) scanRollouts(ctx context.Context, opts agent.ListOptions) ([]threadRow, []agent.Diagnostic) {
	var (
		rows  []threadRow
		diags []agent.Diagnostic
	)
	roots := []string{codex.SessionsDir(r.Dir)}
	if opts.All {
		roots = append(roots, codex.ArchivedDir(r.Dir))
	}
	for i, root := range roots {
		archived := i == 1
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if !scan.IsNotExist(err) {
					diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: path, Problem: "unreadable: " + err.Error()})
				}
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			name := d.Name()
			if d.IsDir() || !codex.IsRolloutFile(name) {
				return nil
			}
			t, err := r.readRollout(path)
			switch {
			case err != nil:
				diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: path, Problem: "unreadable: " + err.Error()})
				return nil
			case t.Size == 0:
				diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: path, Problem: "empty rollout"})
				return nil
			case t.ID == "" || t.Cwd == "":
				diags = append(diags, agent.Diagnostic{Harness: agent.Codex, Path: path, Problem: "no session_meta record with an id and cwd"})
				return nil
			}
			rows = append(rows, threadRow{
				ID: t.ID, RolloutPath: path, Cwd: t.Cwd, Source: t.Source, GitSHA: t.GitSHA,
				GitBranch: t.GitBranch, GitOrigin: t.GitOrigin, CLIVersion: t.CLIVersion, Model: t.Model,
				Created: t.Created, Updated: t.Last, Archived: archived,
			})
			return nil
		})
	}
	return rows, diags
}

// Get implements Reader: one streaming pass over the whole rollout.
func (r *Reader) Get(ctx context.Context, s agent.Session) (agent.Session, error) {
	if s.Source == "" {
		return s, fmt.Errorf("codex thread %s has no rollout file", s.ID)
	}
	f, err := r.opener()(s.Source)
	if err != nil {
		return s, fmt.Errorf("read %s: %w", s.Source, err)
	}
	defer f.Close()
	sc := &rolloutScan{full: true, count: &agent.MessageCount{}, ev: evidence.NewCollector(r.WorkRules)}
	sc.t.Cwd = s.Cwd
	if err := scan.StreamLines(f, sc.line); err != nil {
		return s, fmt.Errorf("read %s: %w", s.Source, err)
	}
	prompts := sc.prompts
	if len(sc.events) > 0 {
		prompts = sc.events
	}
	for _, p := range prompts {
		sc.ev.Prompt(p)
	}
	sc.counts.HumanPrompts = len(prompts)
	sc.counts.Messages = sc.count.N
	n := sc.count.N
	full := s
	full.Messages = &n
	if sc.t.HasUsage {
		w, src := r.Windows.For(full.Model, 0, sc.t.Window)
		full.Context = newContext(sc.t.Tokens, w, agent.Known(src))
	}
	if sc.t.Last.After(full.LastActivity) {
		full.LastActivity = sc.t.Last
	}
	full.Counts = &sc.counts
	full.RecentPrompts = scan.LastN(prompts, 5)
	full.ContextCurve = sc.curve
	full.Evidence = sc.ev.Finish(ctx, full)
	full.NormalizeTimes()
	return full, nil
}

// resumeArgv is Codex's resume command for id: the agent's own Resume,
// which reads nothing of the agent value (so none is kept).
func resumeArgv(id string) []string {
	argv, _ := (*codex.Agent)(nil).Resume(id, "", false)
	return argv
}

// newContext is the context in use of tokens in a window.
func newContext(tokens, window int64, known bool) *agent.ContextUsage {
	return &agent.ContextUsage{Tokens: tokens, Window: window, WindowKnown: known, Percent: agent.Percent(tokens, window)}
}
