package wrap

import "github.com/tether-dev/tether/state"

// markStale records the failed resume in state; errors are ignored: it
// only saves a doomed attempt next time.
func (o Options) markStale(id, transcript, reason string) {
	if o.StateDir == "" || transcript == "" {
		return
	}
	state.MarkStale(o.StateDir, id, transcript, reason, o.Now())
}

// staleReason returns why the session was found stale, if its transcript
// has not changed since; "" otherwise.
func (o Options) staleReason(id string, tr transcript) string {
	if o.StateDir == "" || tr.path == "" {
		return ""
	}
	return state.StaleReason(o.StateDir, id, tr.path)
}
