package wrap

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/termsafe"
)

// forkTurns is how many answered turns the wrapper's fork keeps besides
// the prompt it sends again: few, since even a summary of the whole
// history did not fit.
const forkTurns = 2

// reasonCompactFailed is why a resume of an agent that compacts itself
// (agent.Compactor: OpenCode) failed when its own compaction did.
const reasonCompactFailed = "history too large for the agent's own compaction"

// compactorRetry is the prompt-too-long path of an agent tether does not
// trim because it compacts its sessions itself: when a resume by id
// failed and the session's last compaction failed too (the history is
// too large even to summarise), the session's last turns are forked into
// a new session (the original untouched) and the same command runs once
// more on the fork. The turn that overflowed is left out of the fork:
// the command sends its prompt again. done is false when that does not
// apply or could not be done; the run then ends as it did.
func (o Options) compactorRetry(log *eventlog.Log, res agent.ResumeArgs, child Child) (code int, done bool, err error) {
	c, ok := o.Agent.(agent.Compactor)
	if !ok || !o.forksOnFailure(res) {
		return 0, false, nil
	}
	ctx := context.Background()
	failed, err := c.CompactionFailed(ctx, o.Bin, res.ID)
	if err != nil || !failed {
		return 0, false, nil
	}
	if o.noRetry {
		log.Warn(eventlog.ResumeFailure, res.ID, slog.String("reason", reasonCompactFailed), slog.String("next", "none"))
		fmt.Fprintf(o.Stderr, "tether: session %s: %s; not forking it: its input (over %d MiB) was not kept to send again.\n",
			termsafe.String(res.ID), reasonCompactFailed, maxReplay>>20)
		return 0, false, nil
	}
	log.Warn(eventlog.ResumeFailure, res.ID, slog.String("reason", reasonCompactFailed), slog.String("next", "fork"))
	if live := o.Agent.Live(res.ID, ""); live.Live() && !o.Force {
		fmt.Fprintf(o.Stderr, "tether: session %s: %s; not forking it while it runs (%s).\n", termsafe.String(res.ID), reasonCompactFailed, live.Reason)
		return 0, false, nil
	}
	f, err := c.ForkKeep(ctx, o.Bin, res.ID, agent.ForkOptions{Turns: forkTurns, DropUnanswered: true})
	if err != nil {
		log.Warn(eventlog.TrimFailed, res.ID, eventlog.TrimFailedAttrs(eventlog.SourceRetry, "", 0, err)...)
		fmt.Fprintf(o.Stderr, "tether: session %s: %s, and it could not be forked: %s\n", termsafe.String(res.ID), reasonCompactFailed, termsafe.String(err.Error()))
		return 0, false, nil
	}
	log.Info(eventlog.ResumeFork, res.ID, slog.String("new_session_id", f.ID), slog.Int("turns", f.Turns), slog.Int("of", f.Of),
		slog.Int("messages", f.Messages), slog.Int("dropped", f.Dropped))
	fmt.Fprintf(o.Stderr, "tether: session %s: %s — its last %d of %d turns are now session %s (%s is unchanged); resuming %s once more.\n",
		termsafe.String(res.ID), reasonCompactFailed, f.Turns, f.Of, f.ID, termsafe.String(res.ID), f.ID)
	child.Args = res.WithID(child.Args, f.ID)
	if f.Dir != "" {
		child.Dir = f.Dir
	}
	code, err = o.Exec(child)
	log.Info(eventlog.ResumeRetry, f.ID, slog.Int("exit_code", code))
	if err != nil {
		return code, true, fmt.Errorf("run %s: %w", o.Bin, err)
	}
	return code, true, nil
}
