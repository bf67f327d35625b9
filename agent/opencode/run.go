package opencode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/agent"
)

// Timeouts of OpenCode's own commands: a start of its Bun binary takes
// seconds on a busy machine, an export or import of a long session more.
const (
	exportTimeout = 2 * time.Minute
	importTimeout = 2 * time.Minute
)

var _ agent.Compactor = (*Agent)(nil)

// export is `opencode export ID` (Export), parsed and checked.
func (a *Agent) export(ctx context.Context, bin, id string) (*export, error) {
	ctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	out, err := a.Export(ctx, agent.Program{Bin: bin}, id)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("opencode export %s: no answer within %s", id, exportTimeout)
	}
	if err != nil {
		return nil, err
	}
	e, err := parseExport(out)
	if err != nil {
		return nil, fmt.Errorf("opencode export %s: %w", id, err)
	}
	return e, nil
}

// Inspect is what the export of session id says about it.
func (a *Agent) Inspect(ctx context.Context, bin, id string) (Snapshot, error) {
	e, err := a.export(ctx, bin, id)
	if err != nil {
		return Snapshot{}, err
	}
	return e.snapshot(), nil
}

// CompactionFailed implements agent.Compactor.
func (a *Agent) CompactionFailed(ctx context.Context, bin, id string) (bool, error) {
	e, err := a.export(ctx, bin, id)
	if err != nil {
		return false, err
	}
	return e.compactionFailed(), nil
}

// ForkKeep implements agent.Compactor: export the session, keep its last
// turns under fresh ids (see planFork, forkExport), and import that as a
// new session from the session's directory (import binds a session to
// the directory it runs in). The file imported is 0600 in a private
// directory, removed after. OpenCode's import inserts rows whose ids are
// new only, and the original's ids are all replaced, so the original is
// not touched.
func (a *Agent) ForkKeep(ctx context.Context, bin, id string, opts agent.ForkOptions) (agent.Fork, error) {
	e, err := a.export(ctx, bin, id)
	if err != nil {
		return agent.Fork{}, err
	}
	plan, err := planFork(e, opts)
	if err != nil {
		return agent.Fork{}, fmt.Errorf("session %s: %w", id, err)
	}
	ids := newIDSource(time.Now())
	data, sid, err := forkExport(e, plan, ids, time.Now())
	if err != nil {
		return agent.Fork{}, fmt.Errorf("session %s: %w", id, err)
	}
	ids.Wait()
	dir := str(e.Info, "directory")
	if err := a.importExport(ctx, bin, dir, data); err != nil {
		return agent.Fork{}, err
	}
	return agent.Fork{ID: sid, Dir: dir, Turns: plan.turns, Of: plan.of, Summary: plan.summary,
		Messages: len(plan.keep), Dropped: len(e.Messages) - len(plan.keep)}, nil
}

// importExport imports data, the export of new session sid, from the
// session's directory dir (Import), through a 0600 file in a private
// directory removed after.
func (a *Agent) importExport(ctx context.Context, bin, dir string, data []byte) error {
	tmp, err := os.MkdirTemp("", "tether-opencode-fork-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "fork.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, importTimeout)
	defer cancel()
	if err := a.Import(ctx, agent.Program{Bin: bin}, file, dir); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("opencode import: no answer within %s", importTimeout)
		}
		return err
	}
	return nil
}
