package claudesessions

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"
)

// Agent is Claude Code with its session reader: what tether's catalog
// lists (agent.Lister).
type Agent struct{ *claude.Agent }

// New is Claude Code reading configDir, sessions included.
func New(configDir string) Agent { return Agent{claude.New(configDir)} }

var _ agent.Lister = Agent{}

// Sessions implements agent.Lister.
func (a Agent) Sessions(cfg agent.ReaderConfig) agent.Reader {
	r := &Reader{Dir: a.Home(), Procs: scan.OSProcesses{}, Open: cfg.Open, Windows: cfg.Windows, WorkRules: cfg.WorkRules,
		Counts: cfg.Counts, Now: cfg.Now, HeadBytes: cfg.HeadBytes, TailBytes: cfg.TailBytes}
	if cfg.CachePath != "" {
		r.UsageCachePath = filecache.UsagePath(cfg.CachePath)
	}
	if cfg.CachePath != "" && !cfg.UsageOnly {
		r.Cache = OpenCache(cfg.CachePath)
	}
	return r
}

// StorageDir is where the reader looks for transcripts.
func (r *Reader) StorageDir() string { return claude.ProjectsDir(r.Dir) }

// ShareRoots makes the reader resolve cwds through m (a listing's memo,
// shared by every reader of a catalog).
func (r *Reader) ShareRoots(m *evidence.RootMemo) { r.roots.Shared = m }

// ShareStats makes the reader record the directories' mtimes it reads in
// st (for the archive's pass of the same listing).
func (r *Reader) ShareStats(st *scan.DirStats) { r.stats = st }

// SaveCache writes the reader's cache.
func (r *Reader) SaveCache() error { return r.Cache.Save() }

// Describe is the session of the one transcript at path (an archived
// copy), or why there is none.
func (r *Reader) Describe(path string) (agent.Session, string) {
	sum, _, err := r.summarize(path)
	if err != nil {
		return agent.Session{}, err.Error()
	}
	if sum.Problem != "" {
		return agent.Session{}, sum.Problem
	}
	return r.session(path, sum, nil), ""
}
