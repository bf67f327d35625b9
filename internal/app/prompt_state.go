package app

import (
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/state"
)

// rootStatePath is the one small file the hooks keep for an identity
// root's latest session, which the shell watches.
func rootStatePath(stateDir, root string) string { return state.RootPath(stateDir, root) }

// latestUsage reads the context use of root's latest session. ok is false
// when no session has reported usage for root.
func latestUsage(stateDir, root string) (u shellinit.Usage, ok bool, err error) {
	s, err := state.LatestForRoot(stateDir, root)
	if err != nil || !s.UsageKnown {
		return u, false, err
	}
	return shellinit.Usage{Harness: s.Harness, Model: s.Model, Tokens: s.Tokens, Window: s.Window, Percent: s.Percent}, true, nil
}
