package wrap

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/termsafe"
)

// restoreFromArchive puts a transcript that is gone back from tether's
// archive before a resume by id, so the CLI finds it. It returns the
// transcript as found afterwards (empty when there was nothing to
// restore). A restore never replaces a file; any failure leaves the
// resume to go on as it would have (the fresh-start fallback), except a
// compressed copy this binary cannot decode (tether-hot): that error
// (archive.ErrNoCodec) is returned before anything was done, so the
// caller can hand the whole run to tether.
func (o Options) restoreFromArchive(log *eventlog.Log, id string) (transcript, error) {
	if o.Archive == nil {
		return transcript{}, nil
	}
	harness := o.Agent.Name()
	stored := o
	stored.Agent = o.Agent.At(o.Archive.HarnessDir(harness))
	// The store mirrors the agent's layout: the same lookup finds the
	// stored file (whatever its content, so only the path is used).
	found := stored.findTranscript(id)
	if found.path == "" {
		return transcript{}, nil
	}
	live, err := o.Archive.LivePath(harness, found.path, o.Agent.Home())
	if err == nil {
		err = o.Archive.Restore(found.path, live)
	}
	if errors.Is(err, archive.ErrNoCodec) {
		return transcript{}, err
	}
	if err != nil {
		log.Warn(eventlog.ArchiveRestoreFailed, id, slog.String("error", err.Error()), slog.Bool("exists", errors.Is(err, archive.ErrExists)))
		return transcript{}, nil
	}
	log.Info(eventlog.ArchiveRestore, id, slog.String("path", live))
	fmt.Fprintln(o.Stderr, termsafe.String(restoredNotice(id, live)))
	tr := o.findTranscript(id)
	tr.restored = live
	return tr, nil
}

// restoredNotice says that a session was put back from the archive.
func restoredNotice(id, live string) string {
	return fmt.Sprintf("tether: restored session %s from tether's archive to %s", identity.ShortID(id), live)
}
