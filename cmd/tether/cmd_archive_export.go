package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/wrap"
)

// An agent whose sessions are database rows (agent.Exporter: OpenCode)
// is archived as its own export of each session. Exporting runs the
// agent's program (seconds per session), so only 'tether archive sync'
// does it, and only for a session whose stamp (last update, message
// count) differs from the stored export's: a listing never exports.

// exporters are the agents of the registry whose sessions are archived
// as exports, by harness name.
func (a *App) exporters() map[string]agent.Exporter {
	out := map[string]agent.Exporter{}
	for _, ag := range sessionAgents(a.Loc.ClaudeDir, a.Loc.CodexDir, a.Loc) {
		if ex, ok := ag.(agent.Exporter); ok {
			out[ag.Name()] = ex
		}
	}
	return out
}

// exportedLive are the sessions the exporters list (their readers alone:
// status needs no transcript read). A reader that fails lists none: its
// exports then count as the only copies, which a sync corrects.
func (a *App) exportedLive(ctx context.Context, exs map[string]agent.Exporter) []catalog.Session {
	var out []catalog.Session
	for _, ag := range sessionAgents(a.Loc.ClaudeDir, a.Loc.CodexDir, a.Loc) {
		if exs[ag.Name()] == nil {
			continue
		}
		ss, _, _ := ag.Sessions(agent.ReaderConfig{}).List(ctx, agent.ListOptions{All: true})
		out = append(out, ss...)
	}
	return out
}

// agentProgram is the agent's program (tether's shims skipped) and the
// environment the summary providers get: the locations tether was given
// and TETHER_IN_HOOK, so tether's own plugin in it stays quiet.
func (a *App) agentProgram(command string) agent.Program {
	self, _ := os.Executable()
	bin, _ := wrap.FindBinary(command, a.Getenv, self, []string{a.Loc.ShimsDir()})
	return agent.Program{Bin: bin, Env: a.providerEnv()}
}

// exportSessions brings the stored export of every live session of an
// exporter up to date, counting into sum.
func (a *App) exportSessions(ctx context.Context, st *archive.Store, exs map[string]agent.Exporter, ss []catalog.Session, sum *syncSummary) {
	progs := map[string]agent.Program{}
	for _, s := range ss {
		ex := exs[s.Harness]
		if ex == nil || s.State == catalog.StateArchived || ctx.Err() != nil {
			continue
		}
		stamp, ok := ex.ExportStamp(s)
		if !ok {
			continue // nothing to tell one export from the next: next time
		}
		want := archive.Stamp{UpdatedNano: stamp.UpdatedNano, Messages: stamp.Messages}
		if have, ok := st.ExportStamp(s.Harness, s.ID); ok && have == want {
			sum.actions[archive.Unchanged]++
			continue
		}
		prog, ok := progs[s.Harness]
		if !ok {
			prog = a.agentProgram(a.agentCommand(s.Harness))
			progs[s.Harness] = prog
		}
		res, err := a.exportOne(ctx, st, ex, prog, s, want)
		switch {
		case errors.Is(err, agent.ErrNoSession):
			// Deleted since the listing: the stored export (if any) stays.
		default:
			sum.add(s, res, err)
		}
	}
}

func (a *App) exportOne(ctx context.Context, st *archive.Store, ex agent.Exporter, prog agent.Program, s catalog.Session, want archive.Stamp) (archive.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	data, err := ex.Export(ctx, prog, s.ID)
	if err != nil {
		return archive.Result{}, err
	}
	return st.PutExport(s.Harness, s.ID, data, want)
}

// exportTimeout bounds one export: OpenCode starts in seconds; a session
// of tens of megabytes takes longer.
const exportTimeout = 5 * time.Minute

// agentCommand is the program of harness.
func (a *App) agentCommand(harness string) string {
	if ag := a.Agents().Get(harness); ag != nil {
		return ag.Command()
	}
	return harness
}

// indexExports adds the stored exports to ix, each marked gone when the
// agent no longer lists its session (live: every session listed).
func indexExports(st *archive.Store, ix *archive.Index, exs map[string]agent.Exporter, live []catalog.Session) error {
	have := map[string]map[string]string{}
	for _, s := range live {
		if exs[s.Harness] != nil && s.State != catalog.StateArchived {
			if have[s.Harness] == nil {
				have[s.Harness] = map[string]string{}
			}
			have[s.Harness][s.ID] = s.Source
		}
	}
	for h := range exs {
		err := st.IndexExports(ix, h, func(id string) (string, bool) {
			where, ok := have[h][id]
			return where, ok
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// restoreExport puts an archived export back with the agent's own
// import, run in the session's directory (the agent binds the session to
// it). The export is decoded into a private temporary file first.
func (a *App) restoreExport(ctx context.Context, ex agent.Exporter, s catalog.Session) error {
	if s.Cwd == "" {
		return fmt.Errorf("session %s: the archived export names no directory", s.Key())
	}
	data, err := archive.ReadExport(s.Archive.Path)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "tether-restore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, s.ID+archive.ExportExt)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	if err := ex.Import(ctx, a.agentProgram(a.agentCommand(s.Harness)), file, s.Cwd); err != nil {
		return err
	}
	a.Log().With(s.Harness, s.IdentityRoot).Info(eventlog.ArchiveRestore, s.ID, slog.String("path", s.Source), slog.Bool("compressed", true))
	fmt.Fprintf(a.IO.ErrOut, "tether: restored %s %s from tether's archive (%s import, run in %s)\n", s.Harness, termsafe.String(s.ShortID()),
		a.agentCommand(s.Harness), termsafe.String(s.Cwd))
	return nil
}

// refuseLiveExport is the error for a session the agent still has.
func refuseLiveExport(s catalog.Session) error {
	return exitcode.With(exitcode.Refused, fmt.Errorf("session %s is not only in the archive: %s still has it (in %s)", s.Key(), s.Harness, termsafe.String(s.Source)))
}
