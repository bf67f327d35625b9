package wrap

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
)

// stored is what the agent's session reader says of a session resumed
// by id, for an agent whose sessions are rows of a database
// (Capabilities.Database): there is no transcript for findTranscript to
// find.
type stored struct {
	db bool // the agent keeps a database
	// known: the reader answered (there is one, and the database could
	// be read); found: it has the session, s.
	known, found bool
	s            agent.Session
}

// lookupTimeout bounds the reader's query (its busy timeout is 2 s).
const lookupTimeout = 5 * time.Second

// lookup asks the reader about session id. Without one (tether-hot) or
// when the database cannot be read nothing is known: the agent is run as
// asked and says itself (Failures.LoadFailed).
func (o Options) lookup(id string) stored {
	st := stored{db: true}
	if o.Finder == nil {
		return st
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	s, ok, err := o.Finder.Find(ctx, id)
	if err != nil {
		return st
	}
	st.known, st.found, st.s = true, ok, s
	return st
}

// inItsDirectory is where a stored session resumes: the directory it
// recorded, exactly (OpenCode resumed from any other, its project's root
// or a subdirectory included, runs the turn and never exits), as the
// identity root of that directory, which the child starts in. root is
// returned unchanged when the session is not known or its directory is
// gone.
func (o Options) inItsDirectory(id string, st stored, root identity.Root) identity.Root {
	if !st.found || st.s.Cwd == "" {
		return root
	}
	rec := identity.Resolve(st.s.Cwd)
	if rec.FellBack || rec.Path == root.Path || !isDir(rec.Dir) {
		return root
	}
	o.log(o.Agent.Name(), rec.Path).Info(eventlog.ResumeCwdRepair, id, slog.String("from", root.Path),
		slog.String("to", rec.Path), slog.String("cwd", st.s.Cwd))
	return rec
}

// resumable says why a session resumed by id cannot be resumed (""
// when it can), from its transcript or, for a database's session, from
// what the reader said; a session a process runs for certain is refused
// unless Force.
func (o Options) resumable(log *eventlog.Log, id string, tr transcript, st stored) (string, error) {
	if !st.db {
		if reason := tr.unusable(); reason != "" {
			return reason, nil
		}
		return o.staleReason(id, tr), nil
	}
	switch {
	case !st.known:
		return "", nil
	case !st.found:
		return "session not found", nil
	case st.s.Cwd != "" && !isDir(st.s.Cwd):
		return "its directory " + st.s.Cwd + " is gone", nil
	}
	if rt := st.s.Runtime; !o.Force && st.s.State == agent.StateRunning && rt != nil && rt.Status != agent.StatusPossibly {
		err := &RunningError{ID: id, PID: rt.PID, Short: o.short(id, tr)}
		log.Warn(eventlog.ResumeRefused, id, slog.String("reason", err.Error()))
		return "", err
	}
	return "", nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
