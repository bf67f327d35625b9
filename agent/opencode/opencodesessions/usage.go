package opencodesessions

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/bincodec"
)

// OpenCode keeps each response's usage on its assistant message (the
// message row's data: tokens {input, output, reasoning, cache {read,
// write}} and cost, priced by OpenCode from its models list). `opencode
// stats` sums each session's running totals (the session row's tokens_*
// and cost), which OpenCode adds every assistant message to; tether
// counts the messages themselves (they carry the date and the model a
// report needs) and takes their cost as OpenCode recorded it, so the two
// agree (docs/usage.md).

var (
	_ agent.UsageCounter        = (*Reader)(nil)
	_ agent.ArchiveUsageCounter = (*ArchiveReader)(nil)
)

// usageKind versions what the usage cache keeps.
const usageKind = "opencode-usage/1"

// UsageCache keeps the usage of each session per database, while the
// database is unchanged (the list cache's rules: cache.go).
type UsageCache = filecache.Cache[noValue, usageSet]

// usageSet is every session's usage as a query of the database at Stamp
// read them at Checked (UnixNano).
type usageSet struct {
	Stamp    scan.DBStamp
	Checked  int64
	Sessions []sessionUsage
}

// sessionUsage is one session's records (Entry.State holds its
// directory).
type sessionUsage struct {
	ID    string
	Entry filecache.UsageEntry
}

var usageCodec = filecache.Codec[noValue, usageSet]{
	Kind:      usageKind,
	Put:       func(*bincodec.Writer, *noValue) {},
	Get:       func(*bincodec.Reader) noValue { return noValue{} },
	PutRecord: putUsageSet,
	GetRecord: getUsageSet,
}

func putUsageSet(w *bincodec.Writer, u *usageSet) {
	scan.PutDBStamp(w, u.Stamp, u.Checked)
	w.Uint(uint64(len(u.Sessions)))
	for i := range u.Sessions {
		w.Str(u.Sessions[i].ID)
		filecache.PutUsageEntry(w, &u.Sessions[i].Entry)
	}
}

func getUsageSet(r *bincodec.Reader) usageSet {
	var u usageSet
	u.Stamp, u.Checked = scan.GetDBStamp(r)
	for n := r.Count(); n > 0 && r.Err() == nil; n-- {
		s := sessionUsage{ID: r.Str()}
		s.Entry = filecache.GetUsageEntry(r)
		u.Sessions = append(u.Sessions, s)
	}
	return u
}

func (r *Reader) openUsage() *UsageCache {
	path := r.UsageCachePath
	if path == "" && r.Cache != nil && r.Cache.Path() != "" {
		path = filecache.UsagePath(r.Cache.Path())
	}
	if r.usage == nil && path != "" {
		r.usage = filecache.Open(path, &usageCodec)
	}
	return r.usage
}

// CountUsage implements agent.UsageCounter: every session of the
// database (archived by OpenCode too, as `opencode stats` counts them),
// in the order they were created, one FileUsage each (a session without
// an assistant message has no records). The database is queried again
// only when it changed since the last count. OpenCode's JSON storage
// (before 1.2) is not counted.
func (r *Reader) CountUsage(ctx context.Context) ([]agent.FileUsage, []agent.Diagnostic, error) {
	if r.DB == "" {
		return nil, nil, nil
	}
	if _, err := os.Stat(r.DB); err != nil {
		if scan.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read %s: %w", r.DB, err)
	}
	sessions, err := r.usageSessions(ctx)
	if err != nil {
		return nil, []agent.Diagnostic{{Harness: agent.OpenCode, Path: r.DB, Problem: "usage not counted: " + err.Error()}}, nil
	}
	out := make([]agent.FileUsage, 0, len(sessions))
	for _, s := range sessions {
		out = append(out, fileUsage(r.DB, s))
	}
	var diags []agent.Diagnostic
	if c := r.openUsage(); c != nil {
		if err := c.Save(); err != nil {
			diags = append(diags, agent.Diagnostic{Harness: agent.OpenCode, Path: c.Path(), Problem: "usage cache not saved: " + err.Error()})
		}
	}
	return out, diags, nil
}

func fileUsage(path string, s sessionUsage) agent.FileUsage {
	return agent.FileUsage{Harness: agent.OpenCode, Path: path, Session: s.ID, Project: string(s.Entry.State),
		Billing: agent.BillingPerRequest, Records: s.Entry.Records, Skipped: s.Entry.Skipped}
}

// usageSessions are the database's sessions' usage, from the usage cache
// when the database is as it was at the last count.
func (r *Reader) usageSessions(ctx context.Context) ([]sessionUsage, error) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	c := r.openUsage()
	st, ok := scan.StampDB(r.DB)
	if ok && c != nil {
		if rec, hit := c.Record(r.DB); hit && rec.Stamp.Trusts(rec.Checked, st, now.UnixNano()) {
			return rec.Sessions, nil
		}
	}
	var sessions []sessionUsage
	err := readDB(r.DB, func(db *sql.DB) error {
		var err error
		sessions, err = queryUsage(ctx, db)
		return err
	})
	if err == nil && ok && c != nil {
		c.StoreRecord(r.DB, usageSet{Stamp: st, Checked: now.UnixNano(), Sessions: sessions})
	}
	return sessions, err
}

// queryUsage reads every session and its assistant messages' usage: two
// queries, the messages' data read whole (an assistant message's data
// is its metadata; its text is in the parts). A message whose data is
// not JSON is a skipped record, not an error (SQLite's json_extract
// would fail the whole query on it: the CASE keeps it from being asked).
func queryUsage(ctx context.Context, db *sql.DB) ([]sessionUsage, error) {
	sc, err := probe(ctx, db, "session", "message")
	if err != nil {
		return nil, err
	}
	if why := sc.missing("session", "id", "directory"); why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	order := "s.id"
	if sc["session"]["time_created"] {
		order = "s.time_created, s.id"
	}
	var out []sessionUsage
	byID := map[string]int{}
	rs, err := db.QueryContext(ctx, "SELECT s.id, s.directory FROM session s ORDER BY "+order)
	if err != nil {
		return nil, fmt.Errorf("query sessions: %w", err)
	}
	for rs.Next() {
		var id, dir sql.NullString
		if err := rs.Scan(&id, &dir); err != nil {
			rs.Close()
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		byID[id.String] = len(out)
		out = append(out, sessionUsage{ID: id.String, Entry: filecache.UsageEntry{State: []byte(dir.String)}})
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	if sc.missing("message", "id", "session_id", "data") != "" {
		return out, nil
	}
	created, morder := "NULL", "m.id"
	if sc["message"]["time_created"] {
		created, morder = "m.time_created", "m.time_created, m.id"
	}
	rs, err = db.QueryContext(ctx, `SELECT m.session_id, m.id, `+created+`, m.data FROM message m
		WHERE CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.role') = 'assistant' ELSE 1 END
		ORDER BY `+morder)
	if err != nil {
		return nil, fmt.Errorf("query messages: %w", err)
	}
	defer rs.Close()
	models := &filecache.Models{}
	for rs.Next() {
		var sid, id, data sql.NullString
		var at sql.NullInt64
		if err := rs.Scan(&sid, &id, &at, &data); err != nil {
			return nil, fmt.Errorf("read messages: %w", err)
		}
		i, ok := byID[sid.String]
		if !ok {
			continue // a message of no session: OpenCode's cascade would have removed it
		}
		e := &out[i].Entry
		rec, counts, valid := messageUsage(id.String, data.String, at.Int64, models)
		switch {
		case !valid:
			e.Skipped++
		case counts:
			e.Records = append(e.Records, rec)
		}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	return out, nil
}

// messageUsage is the usage record of an assistant message (id, its data,
// its row's creation time): counts is false for a message that spent
// nothing, valid false for data that is not a JSON object.
func messageUsage(id, data string, created int64, models *filecache.Models) (rec agent.UsageRecord, counts, valid bool) {
	if !gjson.Valid(data) {
		return rec, false, false
	}
	m := gjson.Parse(data)
	if !m.IsObject() {
		return rec, false, false
	}
	if m.Get("role").String() != "assistant" {
		return rec, false, true
	}
	return infoUsage(id, m, created, models)
}

// infoUsage reads an assistant message's info (the data of its row, or
// an export's messages[].info): as `opencode stats` sums them, each
// field a number or 0, the cost as OpenCode priced it. tether's output
// includes the reasoning tokens (reasoningOutputTokens are a part of
// outputTokens, as for Codex).
func infoUsage(id string, m gjson.Result, created int64, models *filecache.Models) (agent.UsageRecord, bool, bool) {
	t := m.Get("tokens")
	num := func(path string) int64 {
		v := t.Get(path)
		if v.Type != gjson.Number || v.Num < 0 {
			return 0
		}
		return int64(v.Num)
	}
	rec := agent.UsageRecord{Input: num("input"), Output: num("output") + num("reasoning"), Reasoning: num("reasoning"),
		CacheRead: num("cache.read"), CacheWrite: num("cache.write"), HasCost: true}
	if c := m.Get("cost"); c.Type == gjson.Number {
		rec.CostUSD = c.Num
	}
	if rec.Tokens() == 0 && rec.CostUSD == 0 {
		return rec, false, true
	}
	rec.Time = created
	if c := m.Get("time.created"); c.Type == gjson.Number && c.Num > 0 {
		rec.Time = int64(c.Num)
	}
	rec.Model = models.Intern(m.Get("modelID").String())
	rec.Key = messageKey(id)
	return rec, true, true
}

// messageKey is a message's key across the database and the archive's
// exports (its id is unique in OpenCode).
func messageKey(id string) uint64 {
	if id == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}

// CountArchivedUsage implements agent.ArchiveUsageCounter: the exports
// under dir (<id>.json) of the sessions live does not have (OpenCode
// deleted them), in id order. An export is read again only when its
// stored file changed (size, mtime), from the usage cache beside the
// archive reader's.
func (r *ArchiveReader) CountArchivedUsage(ctx context.Context, dir string, live []agent.FileUsage) ([]agent.FileUsage, []agent.Diagnostic, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		if scan.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	have := map[string]bool{}
	for i := range live {
		have[live[i].Session] = true
	}
	var cache *filecache.UsageCache
	if r.CachePath != "" {
		cache = filecache.OpenUsage(filecache.UsagePath(r.CachePath), "opencode-export/1")
	}
	models := &filecache.Models{}
	var (
		out   []agent.FileUsage
		diags []agent.Diagnostic
	)
	for _, de := range names {
		id := exportID(de.Name())
		if id == "" || have[id] || !de.Type().IsRegular() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		p := dir + string(os.PathSeparator) + de.Name()
		e, err := r.exportUsage(cache, p, models)
		if err != nil {
			diags = append(diags, agent.Diagnostic{Harness: agent.OpenCode, Path: p, Problem: "usage not counted: " + err.Error()})
			continue
		}
		out = append(out, agent.FileUsage{Harness: agent.OpenCode, Path: p, Session: id, Project: string(e.State),
			Billing: agent.BillingPerRequest, Records: e.Records, Skipped: e.Skipped})
	}
	if err := cache.Save(); err != nil {
		diags = append(diags, agent.Diagnostic{Harness: agent.OpenCode, Path: cache.Path(), Problem: "usage cache not saved: " + err.Error()})
	}
	return out, diags, nil
}

// exportID is the session id an export's file name gives ("" when it is
// not one: the archive's <id>.json).
func exportID(name string) string {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || id == "" || strings.HasPrefix(id, ".") {
		return ""
	}
	return id
}

// exportUsage is the usage of the export stored at path.
func (r *ArchiveReader) exportUsage(c *filecache.UsageCache, path string, models *filecache.Models) (filecache.UsageEntry, error) {
	st, err := os.Stat(path)
	if err != nil {
		return filecache.UsageEntry{}, err
	}
	var e filecache.UsageEntry
	if c.Lookup(path, st.Size(), st.ModTime(), &e) {
		return e, nil
	}
	data, _, err := r.read(path)
	if err != nil {
		return e, err
	}
	if _, why := exportRow(data); why != "" {
		return e, fmt.Errorf("%s", why)
	}
	root := gjson.ParseBytes(data)
	e.State = []byte(root.Get("info.directory").String())
	for _, m := range root.Get("messages").Array() {
		info := m.Get("info")
		if !info.IsObject() {
			e.Skipped++
			continue
		}
		if info.Get("role").String() != "assistant" {
			continue
		}
		if rec, counts, _ := infoUsage(info.Get("id").String(), info, 0, models); counts {
			e.Records = append(e.Records, rec)
		}
	}
	c.Store(path, st.Size(), st.ModTime(), e)
	return e, nil
}
