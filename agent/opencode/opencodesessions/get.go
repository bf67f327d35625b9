package opencodesessions

import (
	"context"
	"database/sql"
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
	order := "m.id"
	if sc["message"]["time_created"] {
		order = "m.time_created, m.id"
	}
	// Every message with its parts (a message without parts still
	// counts: LEFT JOIN), in the order OpenCode wrote them.
	rs, err := db.QueryContext(ctx, `SELECT m.id, m.data, `+sc.col("message", "m", "time_created")+`, p.data
		FROM message m LEFT JOIN part p ON p.message_id = m.id
		WHERE m.session_id = ? ORDER BY `+order+`, p.id`, s.ID)
	if err != nil {
		return s, err
	}
	defer rs.Close()
	f := newFold(s, r.WorkRules)
	for rs.Next() {
		var (
			id, data string
			created  *int64
			part     *string
		)
		if err := rs.Scan(&id, &data, &created, &part); err != nil {
			return s, err
		}
		f.add(id, data, created, part)
	}
	if err := rs.Err(); err != nil {
		return s, err
	}
	return f.finish(ctx, r), nil
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
	tokens int64
	known  bool
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
				t := unixMilli(nullInt(*created))
				f.s.LastHumanActivity = &t
			}
		}
	}
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
		full.Context = r.context(full.Model, f.tokens)
	}
	full.Evidence = f.ev.Finish(ctx, full)
	full.NormalizeTimes()
	return full
}
