package codexsessions

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/bincodec"
)

// Cache is the reader's cache: a rollout's head and tail per file, and
// the state database's rows per database.
type Cache = filecache.Cache[rolloutTail, threadsRecord]

// OpenCache loads the cache at path (see filecache.Open).
func OpenCache(path string) *Cache { return filecache.Open(path, &codec) }

// codec keeps the tails and the rows in the cache file, their fields in a
// fixed order. Any change to what is stored changes Kind's version.
var codec = filecache.Codec[rolloutTail, threadsRecord]{
	Kind:      "codex/2",
	Put:       putTail,
	Get:       getTail,
	SetCount:  func(t *rolloutTail, mc agent.MessageCount) { t.Msgs.Known, t.Msgs.Count = true, mc },
	PutRecord: putThreads,
	GetRecord: getThreads,
}

func putTail(w *bincodec.Writer, t *rolloutTail) {
	for _, v := range []string{t.ID, t.Cwd, t.Source, t.CLIVersion, t.Model, t.GitBranch, t.GitSHA, t.GitOrigin, t.FirstPrompt} {
		w.Str(v)
	}
	w.Time(t.Created)
	w.Time(t.Last)
	w.Time(t.LastHuman)
	w.Int(t.Tokens)
	w.Int(t.Window)
	w.Bool(t.HasUsage)
	w.Int(int64(t.Valid))
	w.Int(t.Size)
	scan.PutMsgState(w, t.Msgs)
}

func getTail(r *bincodec.Reader) rolloutTail {
	var t rolloutTail
	for _, p := range []*string{&t.ID, &t.Cwd, &t.Source, &t.CLIVersion, &t.Model, &t.GitBranch, &t.GitSHA, &t.GitOrigin, &t.FirstPrompt} {
		*p = r.Str()
	}
	t.Created, t.Last, t.LastHuman = r.Time(), r.Time(), r.Time()
	t.Tokens = r.Int()
	t.Window = r.Int()
	t.HasUsage = r.Bool()
	t.Valid = int(r.Int())
	t.Size = r.Int()
	t.Msgs = scan.GetMsgState(r)
	return t
}

func putThreads(w *bincodec.Writer, rec *threadsRecord) {
	scan.PutDBStamp(w, rec.Stamp, rec.Checked)
	w.Uint(uint64(len(rec.Rows)))
	for i := range rec.Rows {
		putRow(w, &rec.Rows[i])
	}
}

func getThreads(r *bincodec.Reader) threadsRecord {
	var rec threadsRecord
	rec.Stamp, rec.Checked = scan.GetDBStamp(r)
	if nr := r.Count(); nr > 0 {
		rec.Rows = make([]threadRow, 0, min(nr, filecache.ValueBlock))
		for range nr {
			rec.Rows = append(rec.Rows, getRow(r))
		}
	}
	return rec
}

func putRow(w *bincodec.Writer, t *threadRow) {
	for _, v := range []string{t.ID, t.RolloutPath, t.Cwd, t.Source, t.Title, t.Name, t.FirstUser,
		t.GitSHA, t.GitBranch, t.GitOrigin, t.CLIVersion, t.Model} {
		w.Str(v)
	}
	w.Time(t.Created)
	w.Time(t.Updated)
	w.Bool(t.Archived)
}

func getRow(r *bincodec.Reader) threadRow {
	var t threadRow
	for _, p := range []*string{&t.ID, &t.RolloutPath, &t.Cwd, &t.Source, &t.Title, &t.Name, &t.FirstUser,
		&t.GitSHA, &t.GitBranch, &t.GitOrigin, &t.CLIVersion, &t.Model} {
		*p = r.Str()
	}
	t.Created, t.Updated = r.Time(), r.Time()
	t.Archived = r.Bool()
	return t
}
