package opencodesessions

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/agent/scan"
)

// Reader reads the sessions of one OpenCode database (and of the JSON
// storage OpenCode kept before 1.2, when it is still there).
type Reader struct {
	// DB is opencode.db ("": nothing is listed).
	DB string
	// Storage is the JSON storage of OpenCode before 1.2 ("": none).
	Storage string
	// Windows gives a model's context window; Limits, OpenCode's own
	// (its config and models.json), which come first.
	Windows agent.Windows
	Limits  *opencode.Limits
	// WorkRules find work references in show (nil: the defaults).
	WorkRules []agent.WorkRule
	// Processes are the opencode processes running now, read once per
	// listing (nil: none is reported running).
	Processes func() []opencode.Process
	// Cache keeps the listed rows while the database is unchanged (nil:
	// none).
	Cache *Cache
	// Now is the cache's clock (nil: time.Now).
	Now func() time.Time

	roots evidence.RootMemo
	// UsageCachePath is CountUsage's cache ("": beside Cache's file).
	UsageCachePath string
	usage          *UsageCache
}

// Harness implements agent.Reader.
func (r *Reader) Harness() string { return agent.OpenCode }

// ShareRoots makes the reader resolve cwds through m (a listing's memo,
// shared by every reader of a catalog).
func (r *Reader) ShareRoots(m *evidence.RootMemo) { r.roots.Shared = m }

// ShareStats implements the catalog's sharer: the reader reads no
// directory the archive's pass would stat.
func (r *Reader) ShareStats(*scan.DirStats) {}

// SaveCache writes the reader's cache.
func (r *Reader) SaveCache() error { return r.Cache.Save() }

// row is one session as a list reads it: the session row, its project
// and workspace, and what its messages and parts add up to.
type row struct {
	ID, Dir, Title, Parent, Version, Model string
	Worktree, Project, Branch              string
	Tokens                                 [5]int64 // input, output, reasoning, cache read, cache write
	Cost                                   float64
	HasTokens                              bool
	Created, Updated                       int64 // Unix ms
	Archived                               bool
	// HasMsgs: the messages were counted (the table is there).
	HasMsgs                                   bool
	Msgs, Humans, Tools, Compactions, LastHum int64
	// Ctx is the context in use after the last assistant message with
	// output, when known (none since the last compaction: unknown);
	// LastModel and LastProvider are that message's model.
	Ctx                     int64
	CtxKnown                bool
	LastModel, LastProvider string
	// Source is where the session is kept: the database, or the
	// session's file in the JSON storage.
	Source string
}

// List implements agent.Reader: every session in one query. A database
// tether cannot query, or one whose schema lacks what is needed, is a
// diagnostic naming it, not an error: the other agents still list.
func (r *Reader) List(ctx context.Context, opts agent.ListOptions) ([]agent.Session, []agent.Diagnostic, error) {
	rows, diags, err := r.rows(ctx)
	if err != nil {
		return nil, diags, err
	}
	running := r.running(rows)
	out := make([]agent.Session, 0, len(rows))
	for i := range rows {
		if rows[i].Archived && !opts.All {
			continue // archived by OpenCode
		}
		out = append(out, r.session(&rows[i], running))
	}
	if err := r.Cache.Save(); err != nil {
		diags = append(diags, agent.Diagnostic{Harness: agent.OpenCode, Path: r.Cache.Path(), Problem: "cache not saved: " + err.Error()})
	}
	return out, diags, ctx.Err()
}

// rows are the database's sessions and the JSON storage's (a session in
// both, imported on upgrade, is the database's).
func (r *Reader) rows(ctx context.Context) ([]row, []agent.Diagnostic, error) {
	var (
		rows  []row
		diags []agent.Diagnostic
	)
	if r.DB != "" {
		if _, err := os.Stat(r.DB); err == nil {
			rows, err = r.dbRows(ctx)
			if err != nil {
				diags = append(diags, agent.Diagnostic{Harness: agent.OpenCode, Path: r.DB, Problem: err.Error()})
			}
		} else if !scan.IsNotExist(err) {
			return nil, nil, fmt.Errorf("read %s: %w", r.DB, err)
		}
	}
	if r.Storage != "" {
		legacy, d := r.legacyRows(ctx, rows)
		rows = append(rows, legacy...)
		diags = append(diags, d...)
	}
	return rows, diags, nil
}

// dbRows are the database's sessions, from the cache when the database
// is as it was when they were last read.
func (r *Reader) dbRows(ctx context.Context) ([]row, error) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	st, ok := scan.StampDB(r.DB)
	if ok {
		if rows, hit := trustedRows(r.Cache, r.DB, st, now.UnixNano()); hit {
			return rows, nil
		}
	}
	var rows []row
	err := readDB(r.DB, func(db *sql.DB) error {
		var err error
		rows, err = querySessions(ctx, db, nil)
		return err
	})
	for i := range rows {
		rows[i].Source = r.DB
	}
	if err == nil && ok {
		r.Cache.StoreRecord(r.DB, listRecord{Stamp: st, Checked: now.UnixNano(), Rows: rows})
	}
	return rows, err
}

// running are the sessions an opencode process runs, by id: the
// process table is read once for every session (opencode.LiveIn).
func (r *Reader) running(rows []row) map[string]agent.Liveness {
	if r.Processes == nil || len(rows) == 0 {
		return nil
	}
	procs := r.Processes()
	if len(procs) == 0 {
		return nil
	}
	out := map[string]agent.Liveness{}
	for i := range rows {
		if w := &rows[i]; !w.Archived {
			if l := opencode.LiveIn(procs, w.ID, w.Dir, unixMilli(w.Updated)); l.Live() {
				out[w.ID] = l
			}
		}
	}
	return out
}

// session is the listed session of w.
func (r *Reader) session(w *row, running map[string]agent.Liveness) agent.Session {
	s := agent.Session{
		Harness:      agent.OpenCode,
		ID:           w.ID,
		Cwd:          w.Dir,
		IdentityRoot: r.roots.Get(w.Dir),
		GitOrigin:    r.roots.Origin(w.Dir),
		GitBranch:    w.Branch,
		Created:      unixMilli(w.Created),
		LastActivity: unixMilli(w.Updated),
		Archived:     w.Archived,
		State:        agent.StateResumable,
		Source:       w.Source,
		CLIVersion:   w.Version,
		Model:        modelID(w.Model),
		Parent:       w.Parent,
		Resume:       agent.ResumeSpec{Argv: resumeArgv(w.ID), Dir: w.Dir},
	}
	// The search index reads a session again when these change: its
	// last update (OpenCode touches the session with every message) and
	// its message count.
	s.SourceSize, s.SourceMTime = w.Msgs, w.Updated*int64(time.Millisecond)
	s.Title, s.TitleSource = w.Title, agent.TitleThread
	if s.Title == "" || strings.HasPrefix(s.Title, untitled) {
		s.Title, s.TitleSource = agent.CwdTitle(w.Dir), agent.TitleCwd
	}
	if w.HasTokens {
		s.Tokens = &agent.TokenSums{Input: w.Tokens[0], Output: w.Tokens[1], Reasoning: w.Tokens[2],
			CacheRead: w.Tokens[3], CacheWrite: w.Tokens[4], Cost: w.Cost}
	}
	if w.HasMsgs {
		n := int(w.Msgs)
		s.Messages = &n
		s.Counts = &agent.Counts{HumanPrompts: int(w.Humans), Messages: n, ToolCalls: int(w.Tools), Compactions: int(w.Compactions)}
		if w.LastHum > 0 {
			t := unixMilli(w.LastHum)
			s.LastHumanActivity = &t
		}
	}
	if s.Model == "" {
		s.Model = w.LastModel
	}
	if w.CtxKnown {
		s.Context = r.context(cmpOr(w.LastProvider, providerID(w.Model)), s.Model, w.Dir, w.Worktree, w.Ctx)
	}
	if l, ok := running[w.ID]; ok {
		s.State, s.Runtime = agent.StateRunning, &agent.Runtime{PID: l.PID}
		if l.Possible {
			s.Runtime.Status = agent.StatusPossibly
		}
	}
	s.NormalizeTimes()
	return s
}

// untitled starts the title OpenCode gives a session until it is titled
// ("New session - 2026-11-30T…").
const untitled = "New session - "

// contextTokens is the context in use after assistant message m: its
// tokens.total, or the sum of its parts when a version writes no total.
func contextTokens(m gjson.Result) (int64, bool) {
	t := m.Get("tokens")
	if total := t.Get("total"); total.Exists() {
		return total.Int(), true
	}
	sum := t.Get("input").Int() + t.Get("output").Int() + t.Get("reasoning").Int() +
		t.Get("cache.read").Int() + t.Get("cache.write").Int()
	return sum, t.Exists()
}

// context is the context in use of tokens in the window of provider's
// model: OpenCode's own (its config, for a session in dir of the
// project at root, or models.json) as the agent's record of it, else
// tether's.
func (r *Reader) context(provider, model, dir, root string, tokens int64) *agent.ContextUsage {
	w, src := r.Windows.For(model, 0, r.Limits.Window(provider, model, dir, root))
	return &agent.ContextUsage{Tokens: tokens, Window: w, WindowKnown: agent.Known(src), Percent: agent.Percent(tokens, w)}
}

// modelID is the model of a session's model column: JSON {id,
// providerID, variant} in 1.18.33, a plain string if a version writes one.
func modelID(col string) string {
	if m := gjson.Parse(col); m.IsObject() {
		return m.Get("id").String()
	}
	return col
}

// providerID is the provider of a session's model column ("" when it
// names none).
func providerID(col string) string {
	if m := gjson.Parse(col); m.IsObject() {
		return m.Get("providerID").String()
	}
	return ""
}

func unixMilli(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// resumeArgv is OpenCode's resume command for id: the agent's own
// Resume, which reads nothing of the agent value.
func resumeArgv(id string) []string {
	argv, _ := (*opencode.Agent)(nil).Resume(id, "", false)
	return argv
}
