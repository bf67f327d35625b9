// Package opencodesessions is OpenCode's session reader: it lists the
// sessions of OpenCode's database (one query, after probing the schema)
// and reads one session's messages and parts for show. The database is
// opened read-only (mode=ro, a busy timeout): tether never takes a write
// lock on it, never checkpoints its WAL, never writes it. Only tether
// links this package (agent.Lister); tether-hot's agent is
// agent/opencode alone. The SQLite driver is registered by the binary
// (catalog links it), not here.
package opencodesessions

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode"
)

// Agent is OpenCode with its session reader: what tether's catalog lists
// (agent.Lister).
type Agent struct{ *opencode.Agent }

// New is OpenCode reading the data directory home, its sessions in db
// ("": home/opencode.db).
func New(home, db string) Agent { return Agent{opencode.New(home, db)} }

var (
	_ agent.Lister = Agent{}
	_ agent.Finder = (*Reader)(nil)
)

// Sessions implements agent.Lister. A reader of tether's archive (cfg.Open
// set) lists nothing: OpenCode's sessions are not archived yet.
func (a Agent) Sessions(cfg agent.ReaderConfig) agent.Reader {
	r := &Reader{DB: a.DB(), Windows: cfg.Windows, Live: a.LiveAt}
	if cfg.Open != nil {
		r.DB = ""
	}
	return r
}
