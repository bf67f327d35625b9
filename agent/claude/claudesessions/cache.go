package claudesessions

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/bincodec"
)

// Cache is the reader's cache: a summary per transcript.
type Cache = filecache.Cache[summary, filecache.NoRecords]

// OpenCache loads the cache at path (see filecache.Open).
func OpenCache(path string) *Cache { return filecache.Open(path, &codec) }

// codec keeps the summaries in the cache file, their fields in a fixed
// order. Any change to what is stored changes Kind's version.
var codec = filecache.Codec[summary, filecache.NoRecords]{
	Kind:     "claude-code/1",
	Put:      putSummary,
	Get:      getSummary,
	SetCount: func(s *summary, mc agent.MessageCount) { s.Msgs.Known, s.Msgs.Count = true, mc },
}

func putSummary(w *bincodec.Writer, s *summary) {
	for _, v := range []string{s.ID, s.Cwd, s.Branch, s.Version, s.Entrypoint, s.Model} {
		w.Str(v)
	}
	w.Time(s.Created)
	w.Time(s.LastActivity)
	w.Time(s.LastHuman)
	for _, v := range []string{s.FirstPrompt, s.CustomTitle, s.AITitle, s.LastPrompt, s.Summary} {
		w.Str(v)
	}
	w.Int(s.Tokens)
	w.Bool(s.HasUsage)
	w.Int(int64(s.Records))
	w.Str(s.Problem)
	scan.PutMsgState(w, s.Msgs)
}

func getSummary(r *bincodec.Reader) summary {
	var s summary
	for _, p := range []*string{&s.ID, &s.Cwd, &s.Branch, &s.Version, &s.Entrypoint, &s.Model} {
		*p = r.Str()
	}
	s.Created, s.LastActivity, s.LastHuman = r.Time(), r.Time(), r.Time()
	for _, p := range []*string{&s.FirstPrompt, &s.CustomTitle, &s.AITitle, &s.LastPrompt, &s.Summary} {
		*p = r.Str()
	}
	s.Tokens = r.Int()
	s.HasUsage = r.Bool()
	s.Records = int(r.Int())
	s.Problem = r.Str()
	s.Msgs = scan.GetMsgState(r)
	return s
}
