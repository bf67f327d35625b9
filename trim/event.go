package trim

import "github.com/tether-dev/tether/internal/eventlog"

// Event is the lifecycle-log record of this trim, for either source
// (eventlog.SourceManual, eventlog.SourceAuto); percent is the context use
// that set off an automatic trim.
func (r *Report) Event(source string, percent float64) eventlog.TrimDone {
	return eventlog.TrimDone{Source: source, Path: r.Path, Policy: string(r.Policy), Backup: r.Backup,
		Changed: r.Changed, Percent: percent, BytesBefore: r.BytesBefore, BytesAfter: r.BytesAfter,
		RecordsBefore: r.RecordsBefore, RecordsAfter: r.RecordsAfter,
		TokensBefore: r.TokensBefore, TokensAfter: r.TokensAfter}
}
