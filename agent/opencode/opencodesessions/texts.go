package opencodesessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/scan"
)

// Search reads OpenCode's sessions from its database (or JSON storage),
// one session at a time: they are rows, not transcript files.
func init() { agent.RegisterSessionTexts(agent.OpenCode, texts{}) }

// texts is OpenCode's agent.SessionTexts.
type texts struct{}

// SessionTexts implements agent.SessionTexts: the human prompts (text
// parts of user messages that are not synthetic), and with all the
// assistant's text and its tool calls, read from s.Source (the database,
// or the session's file of the JSON storage) read-only. Messages are
// counted as Get counts them.
func (texts) SessionTexts(ctx context.Context, s *agent.Session, all bool, mc *agent.MessageCount, fn func(agent.Text)) error {
	if s.Source == "" {
		return errors.New("opencode session " + s.ID + ": no source")
	}
	var t textFold
	t.all, t.fn = all, fn
	if storage, ok := storageOf(s.Source); ok {
		r := &Reader{Storage: storage}
		for _, m := range r.legacyMessages(s.ID) {
			created := m.created
			if len(m.parts) == 0 {
				t.add(m.id, m.data, &created, nil)
			}
			for i := range m.parts {
				t.add(m.id, m.data, &created, &m.parts[i])
			}
		}
	} else {
		err := readDB(s.Source, func(db *sql.DB) error {
			t = textFold{all: all, fn: fn}
			sc, err := probe(ctx, db, "message", "part")
			if err != nil {
				return err
			}
			for _, tab := range []string{"message", "part"} {
				if why := sc.missing(tab, "id", "session_id", "data"); why != "" {
					return errors.New(why)
				}
			}
			return eachRow(ctx, db, sc, s.ID, t.add)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.Source, err)
		}
	}
	if mc != nil {
		*mc = agent.MessageCount{N: t.msgs}
	}
	return ctx.Err()
}

// textFold gives the texts of a session's rows in order.
type textFold struct {
	all     bool
	fn      func(agent.Text)
	lastMsg string
	msgs    int
}

func (t *textFold) add(id, data string, _ *int64, part *string) {
	m := gjson.Parse(data)
	role := m.Get("role").String()
	if id != t.lastMsg {
		t.lastMsg = id
		if role == "user" || role == "assistant" {
			t.msgs++
		}
	}
	if part == nil {
		return
	}
	p := gjson.Parse(*part)
	switch p.Get("type").String() {
	case "text":
		switch {
		case role == "user" && !p.Get("synthetic").Bool():
			t.fn(agent.Text{Kind: agent.TextPrompt, Text: p.Get("text").String()})
		case role == "assistant" && t.all && !p.Get("synthetic").Bool():
			t.fn(agent.Text{Kind: agent.TextAssistant, Text: p.Get("text").String()})
		}
	case "tool":
		if t.all {
			t.fn(agent.Text{Kind: agent.TextTool, Text: scan.ToolText(p.Get("tool").String(), p.Get("state.input"))})
		}
	}
}
