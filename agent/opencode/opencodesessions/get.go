package opencodesessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/scan"
)

// Get implements agent.Reader: the session's messages and parts, read in
// one query. Counts follow the one rule of agent.MessageCount, for
// OpenCode: every user and assistant message row (OpenCode writes one
// assistant message per model step); a human prompt is a user message
// with a text part that is not synthetic; a tool call is a tool part.
func (r *Reader) Get(ctx context.Context, s agent.Session) (agent.Session, error) {
	if storage, ok := storageOf(s.Source); ok && s.Source != r.DB {
		return (&Reader{Storage: storage, Windows: r.Windows, Limits: r.Limits, WorkRules: r.WorkRules}).getLegacy(ctx, s)
	}
	if r.DB == "" {
		return s, fmt.Errorf("opencode session %s: no database", s.ID)
	}
	var full agent.Session
	err := readDB(r.DB, func(db *sql.DB) error {
		var err error
		full, err = r.get(ctx, db, s)
		return err
	})
	if err != nil {
		return s, err
	}
	return full, nil
}

func (r *Reader) get(ctx context.Context, db *sql.DB, s agent.Session) (agent.Session, error) {
	sc, err := probe(ctx, db, "message", "part")
	if err != nil {
		return s, err
	}
	for _, t := range []string{"message", "part"} {
		if why := sc.missing(t, "id", "session_id", "data"); why != "" {
			return s, errors.New(why)
		}
	}
	if why := sc.missing("part", "message_id"); why != "" {
		return s, errors.New(why)
	}
	f := newFold(s, r.WorkRules)
	if err := eachRow(ctx, db, sc, s.ID, f.add); err != nil {
		return s, err
	}
	return f.finish(ctx, r), nil
}

// eachRow calls fn with every message of session id and its parts, in
// the order OpenCode wrote them (a message without parts once, part nil).
func eachRow(ctx context.Context, db *sql.DB, sc schema, id string, fn func(id, data string, created *int64, part *string)) error {
	order := "m.id"
	if sc["message"]["time_created"] {
		order = "m.time_created, m.id"
	}
	rs, err := db.QueryContext(ctx, `SELECT m.id, m.data, `+sc.col("message", "m", "time_created")+`, p.data
		FROM message m LEFT JOIN part p ON p.message_id = m.id
		WHERE m.session_id = ? ORDER BY `+order+`, p.id`, id)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var (
			mid, data string
			created   *int64
			part      *string
		)
		if err := rs.Scan(&mid, &data, &created, &part); err != nil {
			return err
		}
		fn(mid, data, created, part)
	}
	return rs.Err()
}

// fold gathers a session's messages and parts in order.
type fold struct {
	s       agent.Session
	lastMsg string
	human   bool // the current message is a human prompt (counted once)
	counts  agent.Counts
	prompts []string
	curve   []int64
	ev      *evidence.Collector
	// tokens is the context after the last assistant message with output
	// (known: since the last compaction's summary, there was one).
	tokens   int64
	known    bool
	provider string
}

func newFold(s agent.Session, rules []agent.WorkRule) *fold {
	if rules == nil {
		rules = agent.DefaultWorkRules()
	}
	return &fold{s: s, ev: evidence.NewCollector(rules)}
}

func (f *fold) add(id, data string, created *int64, part *string) {
	m := gjson.Parse(data)
	user := m.Get("role").String() == "user"
	if id != f.lastMsg {
		f.lastMsg, f.human = id, false
		f.message(m)
	}
	if part == nil {
		return
	}
	p := gjson.Parse(*part)
	switch p.Get("type").String() {
	case "tool":
		f.counts.ToolCalls++
		f.tool(p, m)
	case "compaction":
		f.counts.Compactions++
	case "text":
		if !user || p.Get("synthetic").Bool() {
			return
		}
		text := p.Get("text").String()
		if !f.human {
			f.human = true
			f.counts.HumanPrompts++
			f.prompts = append(f.prompts, text)
			f.ev.Prompt(text)
			if created != nil {
				t := unixMilli(*created)
				f.s.LastHumanActivity = &t
			}
		}
	}
}

// tool gives the evidence collector tool part p of assistant message m,
// its input in the shape of the collector's names (Claude Code's): a
// call, and its output for a git commit's line.
func (f *fold) tool(p, m gjson.Result) {
	id, in := p.Get("callID").String(), p.Get("state.input")
	cwd := m.Get("path.cwd").String()
	if cwd == "" {
		cwd = f.s.Cwd
	}
	var name, input string
	switch p.Get("tool").String() {
	case "bash":
		name, input = "Bash", in.Raw
	case "read":
		name, input = "Read", jsonObject("file_path", in.Get("filePath").String())
	case "edit", "multiedit":
		name, input = "Edit", jsonObject("file_path", in.Get("filePath").String())
	case "write":
		name, input = "Write", jsonObject("file_path", in.Get("filePath").String())
	case "apply_patch", "patch":
		name, input = "apply_patch", jsonObject("input", in.Get("patchText").String())
	default:
		return
	}
	f.ev.ToolUse(id, name, gjson.Parse(input), cwd)
	if out := p.Get("state.output"); out.Exists() {
		f.ev.ToolResult(id, out.String())
	}
}

// jsonObject is {"k": v} as JSON.
func jsonObject(k, v string) string {
	b, _ := json.Marshal(map[string]string{k: v})
	return string(b)
}

// message counts one message row and follows the context in use.
func (f *fold) message(m gjson.Result) {
	switch m.Get("role").String() {
	case "user":
		f.counts.Messages++
	case "assistant":
		f.counts.Messages++
		if m.Get("summary").Bool() {
			f.known = false // compacted: unknown until the next turn
			return
		}
		if m.Get("tokens.output").Int() > 0 {
			if t, ok := contextTokens(m); ok {
				f.tokens, f.known = t, true
				f.curve = append(f.curve, t)
			}
		}
		if f.s.Model == "" {
			f.s.Model = m.Get("modelID").String()
		}
		if f.provider == "" {
			f.provider = m.Get("providerID").String()
		}
	}
}

func (f *fold) finish(ctx context.Context, r *Reader) agent.Session {
	full := f.s
	n := f.counts.Messages
	full.Messages = &n
	counts := f.counts
	full.Counts = &counts
	if len(f.prompts) > 0 {
		full.FirstPrompt = f.prompts[0]
	}
	full.RecentPrompts = scan.LastN(f.prompts, 5)
	full.ContextCurve = f.curve
	full.Context = nil
	if f.known {
		root, _ := evidence.RepoOf(full.Cwd)
		full.Context = r.context(f.provider, full.Model, full.Cwd, root, f.tokens)
	}
	full.Evidence = f.ev.Finish(ctx, full)
	full.NormalizeTimes()
	return full
}
