// Package opencodesessions is OpenCode's session reader: it lists the
// sessions of OpenCode's database (one query, after probing the schema;
// none while the database is unchanged, from the reader's cache) and of
// the JSON storage OpenCode kept before 1.2, reads one session's messages
// and parts for show, and gives search a session's texts. The database
// is opened read-only (mode=ro, a busy timeout): tether never takes a
// write lock on it, never checkpoints its WAL, never writes it. Only
// tether links this package (agent.Lister); tether-hot's agent is
// agent/opencode alone. The SQLite driver is registered by the binary
// (catalog links it), not here.
package opencodesessions

import (
	"path/filepath"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/opencode"
)

// Agent is OpenCode with its session reader: what tether's catalog lists
// (agent.Lister).
type Agent struct {
	*opencode.Agent
	// Limits are OpenCode's own context windows (nil: tether's table
	// alone).
	Limits *opencode.Limits
}

// New is OpenCode reading the data directory home, its sessions in db
// ("": home/opencode.db).
func New(home, db string) Agent { return Agent{Agent: opencode.New(home, db)} }

var (
	_ agent.Lister = Agent{}
	_ agent.Finder = (*Reader)(nil)
)

// Sessions implements agent.Lister. A reader of tether's archive (cfg.Open
// set) reads the sessions' exports there (ArchiveReader).
func (a Agent) Sessions(cfg agent.ReaderConfig) agent.Reader {
	if cfg.Open != nil {
		return &ArchiveReader{Open: cfg.Open, CachePath: cfg.CachePath, Windows: cfg.Windows, WorkRules: cfg.WorkRules}
	}
	r := &Reader{DB: a.DB(), Windows: cfg.Windows, Limits: a.Limits, WorkRules: cfg.WorkRules,
		Processes: a.Processes, Now: cfg.Now}
	if a.Home() != "" {
		r.Storage = filepath.Join(a.Home(), StorageDir)
	}
	if cfg.CachePath != "" {
		r.UsageCachePath = filecache.UsagePath(cfg.CachePath)
	}
	if cfg.CachePath != "" && !cfg.UsageOnly {
		r.Cache = OpenCache(cfg.CachePath)
	}
	return r
}
