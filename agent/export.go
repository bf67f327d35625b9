package agent

import (
	"context"
	"errors"
)

// Exporter is an agent whose sessions are rows of the agent's own
// database, not files (OpenCode): there is no transcript to link or copy,
// so tether's archive keeps the agent's own export of each session and
// puts it back with the agent's own import. Neither writes the database
// itself; the agent's program does, as it does for its user.
type Exporter interface {
	// Export is the session's export in the agent's format (a JSON
	// document), made by running prog. A session the agent does not know
	// is an error wrapping ErrNoSession.
	Export(ctx context.Context, prog Program, id string) ([]byte, error)
	// Import puts the export in file back into the agent's store, run
	// in dir (the session's directory: the agent binds an imported
	// session to the directory it is run in).
	Import(ctx context.Context, prog Program, file, dir string) error
	// ExportStamp is what a listed session's export is judged current
	// by: the session's last update and message count as the reader
	// listed them (ok false when the listing does not tell both).
	ExportStamp(s Session) (stamp ExportStamp, ok bool)
}

// Program is an agent's program to run and its environment (nil: this
// process's). The agent adds what points it at the data it was bound to.
type Program struct {
	Bin string
	Env []string
}

// ExportStamp tells one export of a session from another: when the
// session was last updated and how many messages it had.
type ExportStamp struct {
	UpdatedNano int64
	Messages    int64
}

// ErrNoSession is returned (wrapped) by Export for a session the agent
// does not have (deleted meanwhile).
var ErrNoSession = errors.New("the agent has no such session")
