package trim

import "github.com/tether-dev/tether/internal/eventlog"

// FitFile trims the transcript at path in place to percent of window with
// the fit policy, keeping a backup, and returns what the log records of
// the trim (its Source and Percent are the caller's to fill in). It is the
// pre-resume trim cmd/internal/hot gives the wrapper: wrap does not import
// trim, so the trimmer can change without the wrapper's tests.
func FitFile(path string, percent float64, window int64) (eventlog.TrimDone, error) {
	rep, err := File(path, Options{Policy: PolicyFit, FitPercent: percent, Window: int(window)}, false)
	if err != nil {
		return eventlog.TrimDone{}, err
	}
	return rep.Event("", 0), nil
}

// ResetNoted reports whether the project's notes file under root (the
// first of DefaultNotes that exists) has a RESET: TRUE line. A notes file
// that cannot be read asks for nothing.
func ResetNoted(root string) bool {
	n, _ := FindNotes(root)
	return n.Reset
}
