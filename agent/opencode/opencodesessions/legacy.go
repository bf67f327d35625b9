package opencodesessions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
)

// StorageDir is, in OpenCode's data directory, the JSON storage OpenCode
// kept its sessions in before 1.2 (imported into opencode.db on upgrade;
// the files stay). Its layout, from OpenCode's source (not observed: no
// release before 1.2 was run here): storage/project/<projectID>.json,
// storage/session/<projectID>/<sessionID>.json,
// storage/message/<sessionID>/<messageID>.json and
// storage/part/<messageID>/<partID>.json, each the JSON of the record
// (the database's data columns hold the same objects). It is only read.
const StorageDir = "storage"

// legacyRows are the sessions of the JSON storage that the database does
// not have (those OpenCode imported are the database's).
func (r *Reader) legacyRows(ctx context.Context, have []row) ([]row, []agent.Diagnostic) {
	files, _ := filepath.Glob(filepath.Join(r.Storage, "session", "*", "ses_*.json"))
	if len(files) == 0 {
		return nil, nil
	}
	inDB := make(map[string]bool, len(have))
	for i := range have {
		inDB[have[i].ID] = true
	}
	var (
		out   []row
		diags []agent.Diagnostic
	)
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		if id := strings.TrimSuffix(filepath.Base(f), ".json"); inDB[id] {
			continue
		}
		w, problem := r.legacyRow(f)
		if problem != "" {
			diags = append(diags, agent.Diagnostic{Harness: agent.OpenCode, Path: f, Problem: problem})
			continue
		}
		out = append(out, w)
	}
	return out, diags
}

// legacyRow is the session whose file is path, with what its messages
// and parts add up to, or what is wrong with it.
func (r *Reader) legacyRow(path string) (row, string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return row{}, "unreadable: " + err.Error()
	}
	s := gjson.ParseBytes(b)
	if !gjson.ValidBytes(b) || s.Get("id").String() == "" || s.Get("directory").String() == "" {
		return row{}, "not an OpenCode session (no id or directory)"
	}
	w := infoRow(s, path)
	if p := s.Get("projectID").String(); p != "" && !strings.ContainsAny(p, `/\`) {
		if b, err := os.ReadFile(filepath.Join(r.Storage, "project", p+".json")); err == nil {
			w.Worktree, w.Project = gjson.GetBytes(b, "worktree").String(), gjson.GetBytes(b, "name").String()
		}
	}
	w.addMessages(r.legacyMessages(w.ID))
	return w, ""
}

// infoRow is the row of a session's info object (a file of the JSON
// storage, or an export's "info"), before its messages are added.
func infoRow(s gjson.Result, source string) row {
	return row{ID: s.Get("id").String(), Dir: s.Get("directory").String(), Title: s.Get("title").String(),
		Parent: s.Get("parentID").String(), Version: s.Get("version").String(),
		Created: s.Get("time.created").Int(), Updated: s.Get("time.updated").Int(),
		Archived: s.Get("time.archived").Exists(), Source: source, HasMsgs: true}
}

// addMessages adds up msgs, in order, as the listing's query does: the
// counts, the token sums and the context after the last assistant
// message with output.
func (w *row) addMessages(msgs []legacyMessage) {
	for _, m := range msgs {
		w.Msgs++
		d := gjson.Parse(m.data)
		if d.Get("role").String() == "assistant" {
			w.HasTokens = true
			t := d.Get("tokens")
			for i, k := range []string{"input", "output", "reasoning", "cache.read", "cache.write"} {
				w.Tokens[i] += t.Get(k).Int()
			}
			w.Cost += d.Get("cost").Float()
			if t.Get("output").Int() > 0 {
				w.Ctx, w.CtxKnown = 0, false
				w.lastAssistant(d)
			}
		}
		human := false
		for _, p := range m.parts {
			switch pd := gjson.Parse(p); pd.Get("type").String() {
			case "tool":
				w.Tools++
			case "compaction":
				w.Compactions++
			case "text":
				if d.Get("role").String() == "user" && !pd.Get("synthetic").Bool() && !human {
					human = true
					w.Humans++
					w.LastHum = max(w.LastHum, m.created)
				}
			}
		}
	}
}

// legacyMessage is one message of the JSON storage with its parts.
type legacyMessage struct {
	id, data string
	created  int64
	parts    []string
}

// legacyMessages are session id's messages with their parts, in the order
// OpenCode wrote them (creation time, then id); unreadable files are left
// out.
func (r *Reader) legacyMessages(id string) []legacyMessage {
	if strings.ContainsAny(id, `/\`) {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(r.Storage, "message", id, "msg_*.json"))
	var out []legacyMessage
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !gjson.ValidBytes(b) {
			continue
		}
		m := legacyMessage{id: strings.TrimSuffix(filepath.Base(f), ".json"), data: string(b), created: gjson.GetBytes(b, "time.created").Int()}
		parts, _ := filepath.Glob(filepath.Join(r.Storage, "part", m.id, "prt_*.json"))
		sort.Strings(parts)
		for _, p := range parts {
			if b, err := os.ReadFile(p); err == nil && gjson.ValidBytes(b) {
				m.parts = append(m.parts, string(b))
			}
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].created != out[j].created {
			return out[i].created < out[j].created
		}
		return out[i].id < out[j].id
	})
	return out
}

// getLegacy is Get of a session of the JSON storage.
func (r *Reader) getLegacy(ctx context.Context, s agent.Session) (agent.Session, error) {
	if _, err := os.Stat(s.Source); err != nil {
		return s, fmt.Errorf("opencode session %s: %w", s.ID, err)
	}
	f := newFold(s, r.WorkRules)
	for _, m := range r.legacyMessages(s.ID) {
		created := m.created
		if len(m.parts) == 0 {
			f.add(m.id, m.data, &created, nil)
		}
		for i := range m.parts {
			f.add(m.id, m.data, &created, &m.parts[i])
		}
	}
	return f.finish(ctx, r), ctx.Err()
}

// storageOf is the JSON storage holding session file path
// (storage/session/<projectID>/<sessionID>.json), if path is one.
func storageOf(path string) (string, bool) {
	if filepath.Ext(path) != ".json" {
		return "", false
	}
	storage := filepath.Dir(filepath.Dir(filepath.Dir(path)))
	if filepath.Base(filepath.Dir(filepath.Dir(path))) != "session" || filepath.Base(storage) != StorageDir {
		return "", false
	}
	return storage, true
}
