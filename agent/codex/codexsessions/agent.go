package codexsessions

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"
)

// Agent is Codex with its session reader: what tether's catalog lists
// (agent.Lister).
type Agent struct{ *codex.Agent }

// New is Codex reading home, sessions included.
func New(home string) Agent { return Agent{codex.New(home)} }

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

// StorageDir is where the reader looks for threads.
func (r *Reader) StorageDir() string { return r.Dir }

// ShareRoots makes the reader resolve cwds through m (a listing's memo,
// shared by every reader of a catalog).
func (r *Reader) ShareRoots(m *evidence.RootMemo) { r.roots.Shared = m }

// ShareStats makes the reader record the directories' mtimes it reads in
// st (for the archive's pass of the same listing).
func (r *Reader) ShareStats(st *scan.DirStats) { r.stats = st }

// SaveCache writes the reader's cache.
func (r *Reader) SaveCache() error { return r.Cache.Save() }

// Describe is the session of the one rollout at path (an archived copy),
// or why there is none.
func (r *Reader) Describe(path string) (agent.Session, string) {
	t, err := r.readRollout(path)
	switch {
	case err != nil:
		return agent.Session{}, "unreadable: " + err.Error()
	case t.Size == 0 || t.ID == "" || t.Cwd == "":
		return agent.Session{}, "no session id and cwd at its head"
	}
	s := r.session(threadRow{ID: t.ID, RolloutPath: path, Cwd: t.Cwd, Source: t.Source, GitSHA: t.GitSHA,
		GitBranch: t.GitBranch, GitOrigin: t.GitOrigin, CLIVersion: t.CLIVersion, Model: t.Model,
		Created: t.Created, Updated: t.Last})
	return s, ""
}
