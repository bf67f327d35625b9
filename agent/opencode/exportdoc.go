package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// export is `opencode export ID` (also what `opencode import FILE`
// reads): the session row and its messages, each with its parts. Every
// object is kept as decoded (numbers as json.Number), so what tether does
// not edit is imported exactly as exported.
type export struct {
	Info     map[string]any `json:"info"`
	Messages []message      `json:"messages"`
}

type message struct {
	Info  map[string]any   `json:"info"`
	Parts []map[string]any `json:"parts"`
}

// partTypes are the part types of OpenCode 1.18.33 (MessageV2.Part). A
// part of another type may hold references tether would not rewrite, so
// an export with one is refused.
var partTypes = map[string]bool{
	"text": true, "subtask": true, "reasoning": true, "file": true, "tool": true, "step-start": true,
	"step-finish": true, "snapshot": true, "patch": true, "agent": true, "retry": true, "compaction": true,
}

// parseExport decodes and checks an export: the shape tether edits, every
// id of the kind its place needs, every message and part bound to the
// session and message it is in. The error names the first thing that is
// unfamiliar.
func parseExport(data []byte) (*export, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var e export
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("not an OpenCode export: %w", err)
	}
	if e.Info == nil {
		return nil, fmt.Errorf("not an OpenCode export: no info")
	}
	sid, _ := e.Info["id"].(string)
	if !strings.HasPrefix(sid, "ses_") {
		return nil, fmt.Errorf("info.id %q is not a session id (ses_…)", sid)
	}
	if dir, _ := e.Info["directory"].(string); !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("info.directory %q is not an absolute directory", dir)
	}
	seen := map[string]bool{}
	for i, m := range e.Messages {
		if err := m.check(sid, seen); err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	return &e, nil
}

func (m message) check(sid string, seen map[string]bool) error {
	if m.Info == nil {
		return fmt.Errorf("no info")
	}
	id := str(m.Info, "id")
	if !strings.HasPrefix(id, "msg_") || seen[id] {
		return fmt.Errorf("id %q is not a new message id (msg_…)", id)
	}
	seen[id] = true
	if s := str(m.Info, "sessionID"); s != sid {
		return fmt.Errorf("message %s: sessionID %q is not the session's", id, s)
	}
	switch role := str(m.Info, "role"); role {
	case "user":
	case "assistant":
		if p, ok := m.Info["parentID"]; ok {
			if ps, _ := p.(string); !strings.HasPrefix(ps, "msg_") {
				return fmt.Errorf("message %s: parentID %v is not a message id", id, p)
			}
		}
	default:
		return fmt.Errorf("message %s: unfamiliar role %q", id, role)
	}
	for j, p := range m.Parts {
		pid := str(p, "id")
		switch {
		case !strings.HasPrefix(pid, "prt_") || seen[pid]:
			return fmt.Errorf("parts[%d]: id %q is not a new part id (prt_…)", j, pid)
		case str(p, "messageID") != id || str(p, "sessionID") != sid:
			return fmt.Errorf("part %s: not bound to message %s of session %s", pid, id, sid)
		case !partTypes[str(p, "type")]:
			return fmt.Errorf("part %s: unfamiliar part type %q", pid, str(p, "type"))
		}
		seen[pid] = true
	}
	return nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func (m message) id() string     { return str(m.Info, "id") }
func (m message) role() string   { return str(m.Info, "role") }
func (m message) parent() string { return str(m.Info, "parentID") }

// failed reports whether an assistant message ended in an error.
func (m message) failed() bool {
	_, hasErr := m.Info["error"]
	return hasErr || str(m.Info, "finish") == "error"
}

// summary reports whether m is an assistant's compaction summary.
func (m message) summary() bool {
	b, _ := m.Info["summary"].(bool)
	return m.role() == "assistant" && b
}

// answered reports whether m is an assistant message that got through:
// it finished (stop, tool-calls, …) without an error.
func (m message) answered() bool {
	return m.role() == "assistant" && !m.failed() && str(m.Info, "finish") != ""
}

// compaction reports whether m is the user message that asks for a
// compaction (its part "compaction").
func (m message) compaction() bool {
	if m.role() != "user" {
		return false
	}
	for _, p := range m.Parts {
		if str(p, "type") == "compaction" {
			return true
		}
	}
	return false
}

// human reports whether m is a prompt of the user: a user message that is
// neither a compaction request nor only synthetic text (the note OpenCode
// adds after an automatic compaction).
func (m message) human() bool {
	if m.role() != "user" || m.compaction() {
		return false
	}
	for _, p := range m.Parts {
		if syn, _ := p["synthetic"].(bool); !(str(p, "type") == "text" && syn) {
			return true
		}
	}
	return false
}

// lastModel is the provider and model the session used last (its last
// message that names one; else the session's own).
func (e *export) lastModel() (provider, model string) {
	for i := len(e.Messages) - 1; i >= 0; i-- {
		in := e.Messages[i].Info
		if p, m := str(in, "providerID"), str(in, "modelID"); p != "" && m != "" {
			return p, m
		}
		if mm, ok := in["model"].(map[string]any); ok && str(mm, "providerID") != "" && str(mm, "modelID") != "" {
			return str(mm, "providerID"), str(mm, "modelID")
		}
	}
	if mm, ok := e.Info["model"].(map[string]any); ok {
		return str(mm, "providerID"), str(mm, "id")
	}
	return "", ""
}

// compactionFailed reports whether the session's last compaction summary
// failed and nothing was answered after it.
func (e *export) compactionFailed() bool {
	for i := len(e.Messages) - 1; i >= 0; i-- {
		m := e.Messages[i]
		switch {
		case m.summary():
			return m.failed()
		case m.answered():
			return false
		}
	}
	return false
}

// Snapshot is what tether needs of an OpenCode session to compact or fork
// it, read from its export.
type Snapshot struct {
	ID, Dir, Title   string
	Provider, Model  string
	Turns, Messages  int
	CompactionFailed bool
	// LastSummary is the index of the last good compaction summary among
	// the messages (-1: none): a compaction that worked moves it on.
	LastSummary int
}

func (e *export) snapshot() Snapshot {
	p, m := e.lastModel()
	s := Snapshot{ID: str(e.Info, "id"), Dir: str(e.Info, "directory"), Title: str(e.Info, "title"),
		Provider: p, Model: m, Messages: len(e.Messages), CompactionFailed: e.compactionFailed(), LastSummary: -1}
	for i, msg := range e.Messages {
		if msg.human() {
			s.Turns++
		}
		if msg.summary() && !msg.failed() {
			s.LastSummary = i
		}
	}
	return s
}
