package agent

import "context"

// Compactor is an agent whose sessions tether never rewrites because the
// agent compacts them itself (OpenCode keeps them in its own database).
// When the agent's compaction has failed (the history is too large even
// to summarise), the equivalent of a trim is a fork: a new session made
// through the agent's own export and import, holding only the last
// turns; the original is left as it was. Both methods run the agent's
// binary bin; neither opens its store.
//
// It is an optional interface (like HookInstaller) because only an agent
// without transcript files needs it: the wrapper's prompt-too-long path
// asks for it when Capabilities().Trim is not set.
type Compactor interface {
	Agent
	// CompactionFailed reports whether session id's last compaction
	// failed because its history is too large, with nothing answered
	// since.
	CompactionFailed(ctx context.Context, bin, id string) (bool, error)
	// ForkKeep makes a new session of session id's last turns.
	ForkKeep(ctx context.Context, bin, id string, opts ForkOptions) (Fork, error)
}

// ForkOptions say which turns a fork keeps.
type ForkOptions struct {
	// Turns is how many of the last turns (a human prompt and everything
	// until the next one) are kept; at least 1.
	Turns int
	// DropUnanswered leaves out the last turns that got no answer (the
	// one that overflowed, and the agent's replays of it): the caller
	// sends its prompt again.
	DropUnanswered bool
}

// Fork is the session a fork made.
type Fork struct {
	// ID is the new session's; Dir the directory it belongs to (where
	// the agent resumes it).
	ID, Dir string
	// Turns are the turns kept of Of; Summary is set when the last
	// compaction summary before them was kept too.
	Turns, Of int
	Summary   bool
	// Messages are the messages kept, Dropped those left out.
	Messages, Dropped int
}
