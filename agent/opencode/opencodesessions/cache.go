package opencodesessions

import (
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/bincodec"
)

// The database's sessions are queried again only when the database or
// its write-ahead log changed (OpenCode writes through the WAL; a
// checkpoint rewrites the database), as codexsessions does for Codex's
// state database: a warm list then reads nothing of the database. A
// record is trusted under the directory skip's rules (agent/scan): the
// stamp is the recorded one, none of the mtimes is within
// scan.DirRacyWindow of the read that made it, and it is less than
// scan.DirRecheck old.

// Cache is the reader's cache: the listed rows per database.
type Cache = filecache.Cache[noValue, listRecord]

// noValue: the reader keeps nothing per file.
type noValue struct{}

// OpenCache loads the cache at path (see filecache.Open).
func OpenCache(path string) *Cache { return filecache.Open(path, &codec) }

// codec keeps the rows in the cache file, their fields in a fixed order.
// Any change to what is stored changes Kind's version.
var codec = filecache.Codec[noValue, listRecord]{
	Kind:      "opencode/1",
	Put:       func(*bincodec.Writer, *noValue) {},
	Get:       func(*bincodec.Reader) noValue { return noValue{} },
	PutRecord: putRecord,
	GetRecord: getRecord,
}

// listRecord is the rows a query of the database at Stamp returned, read
// at Checked (UnixNano, taken before the query).
type listRecord struct {
	Stamp   scan.DBStamp
	Checked int64
	Rows    []row
}

// trustedRows returns the rows recorded for db when the record can be
// trusted at now.
func trustedRows(c *Cache, db string, st scan.DBStamp, now int64) ([]row, bool) {
	rec, ok := c.Record(db)
	if !ok {
		return nil, false
	}
	if !rec.Stamp.Trusts(rec.Checked, st, now) {
		return nil, false
	}
	return rec.Rows, true
}

func putRecord(w *bincodec.Writer, rec *listRecord) {
	scan.PutDBStamp(w, rec.Stamp, rec.Checked)
	w.Uint(uint64(len(rec.Rows)))
	for i := range rec.Rows {
		putRow(w, &rec.Rows[i])
	}
}

func getRecord(r *bincodec.Reader) listRecord {
	var rec listRecord
	rec.Stamp, rec.Checked = scan.GetDBStamp(r)
	if nr := r.Count(); nr > 0 {
		rec.Rows = make([]row, 0, min(nr, filecache.ValueBlock))
		for range nr {
			rec.Rows = append(rec.Rows, getRow(r))
		}
	}
	return rec
}

func (w *row) strs() []*string {
	return []*string{&w.ID, &w.Dir, &w.Title, &w.Parent, &w.Version, &w.Model, &w.Worktree, &w.Project, &w.Branch,
		&w.LastModel, &w.LastProvider, &w.Source}
}

func (w *row) ints() []*int64 {
	return []*int64{&w.Tokens[0], &w.Tokens[1], &w.Tokens[2], &w.Tokens[3], &w.Tokens[4], &w.Created, &w.Updated,
		&w.Msgs, &w.Humans, &w.Tools, &w.Compactions, &w.LastHum, &w.Ctx}
}

func (w *row) bools() []*bool { return []*bool{&w.HasTokens, &w.Archived, &w.HasMsgs, &w.CtxKnown} }

func putRow(w *bincodec.Writer, t *row) {
	for _, p := range t.strs() {
		w.Str(*p)
	}
	for _, p := range t.ints() {
		w.Int(*p)
	}
	for _, p := range t.bools() {
		w.Bool(*p)
	}
	w.Float(t.Cost)
}

func getRow(r *bincodec.Reader) row {
	var t row
	for _, p := range t.strs() {
		*p = r.Str()
	}
	for _, p := range t.ints() {
		*p = r.Int()
	}
	for _, p := range t.bools() {
		*p = r.Bool()
	}
	t.Cost = r.Float()
	return t
}
