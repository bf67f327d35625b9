package usage

import (
	"encoding/binary"
	"os"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/safeio"
)

// Resume counts a file past its mark (agent.UsageResumer.ResumeUsage).
type Resume func(agent.FileUsage) (agent.FileUsage, bool, error)

// Advance brings the ledger up to date with listed (the harness's files
// now, in count order, each with its stat in Mark): a file whose stat
// changed is counted past its mark by resume, a new file whole; the
// records counted are deduplicated among themselves as a full count
// would, and added to the sums. ok is false, the ledger unchanged, when
// only a full count gives the right answer: a file is gone or does not
// go on from its mark, could not be counted, or a record counted repeats
// one already counted (whose copy might have to replace the other).
func (l *Ledger) Advance(listed []agent.FileUsage, resume Resume) (ok bool) {
	if len(l.recent) >= maxRecent {
		return false // time the keys file took them
	}
	at := make(map[string]int, len(l.files))
	for i := range l.files {
		at[l.files[i].Path] = i
	}
	var grown []agent.FileUsage
	var where []int // grown's ledger files (-1: new)
	seen := 0
	for _, f := range listed {
		i, known := at[f.Path]
		if !known {
			f.Mark = agent.UsageMark{}
			grown, where = append(grown, f), append(where, -1)
			continue
		}
		seen++
		lf := &l.files[i]
		if lf.Mark.Size != f.Mark.Size || lf.Mark.MTime != f.Mark.MTime {
			grown, where = append(grown, lf.FileUsage), append(where, i)
		}
	}
	if seen != len(l.files) {
		return false
	}
	if len(grown) == 0 {
		return true
	}
	counted := make([]agent.FileUsage, len(grown))
	for j, f := range grown {
		c, ok, err := resume(f)
		if !ok || err != nil {
			return false
		}
		counted[j] = c
	}
	if l.repeats(counted) {
		return false
	}
	l.add(counted, where)
	return true
}

// repeats reports whether a record of files (but those not counted)
// has a key of a record the ledger counted, or the keys file is not the
// one the ledger was written with.
func (l *Ledger) repeats(files []agent.FileUsage) bool {
	keys, err := openKeys(l.keysPath, l.keysID)
	if err != nil {
		return true
	}
	defer keys.Close()
	for i := range files {
		for _, r := range files[i].Records {
			if r.Quirk {
				continue // never counted, never a copy
			}
			for _, k := range [2]uint64{r.Key, r.AltKey} {
				if k != 0 && (l.recent[k] || keys.has(k)) {
					return true
				}
			}
		}
	}
	return false
}

// add counts the resumed files' records into the ledger (where: their
// ledger files, -1 for a new one).
func (l *Ledger) add(counted []agent.FileUsage, where []int) {
	var rep Report
	kept := dedupe(counted, Options{Pricing: l.pricing}, &rep)
	l.skipped += rep.Skipped
	l.duplicates += rep.Duplicates
	for j := range counted {
		l.duplicates += counted[j].Folded
	}
	index := map[*agent.FileUsage]int{}
	for j := range counted {
		if where[j] < 0 {
			f := counted[j]
			f.Records, f.Skipped = nil, 0
			where[j] = len(l.files)
			l.files = append(l.files, ledgerFile{FileUsage: f})
		}
		index[&counted[j]] = where[j]
		lf := &l.files[where[j]]
		lf.Mark, lf.Skipped = counted[j].Mark, lf.Skipped+counted[j].Skipped
		if counted[j].Project != "" {
			lf.Project = counted[j].Project
		}
	}
	for _, fs := range sumsOf(kept, l.pricing, spanMS) {
		lf := &l.files[index[fs.File]]
		lf.sums = mergeSums(lf.sums, fs.Sums)
	}
	if l.recent == nil {
		l.recent = map[uint64]bool{}
	}
	for j := range counted {
		for _, r := range counted[j].Records {
			for _, k := range [2]uint64{r.Key, r.AltKey} {
				if k != 0 {
					l.recent[k] = true
				}
			}
		}
	}
	l.dirty = true
}

// mergeSums adds more to sums, span and model by span and model.
func mergeSums(sums, more []Sum) []Sum {
	type key struct {
		span  int64
		model string
	}
	at := make(map[key]int, len(sums))
	for i, s := range sums {
		at[key{s.Span, s.Model}] = i
	}
	for _, m := range more {
		i, ok := at[key{m.Span, m.Model}]
		if !ok {
			at[key{m.Span, m.Model}] = len(sums)
			sums = append(sums, m)
			continue
		}
		s := &sums[i]
		s.Tokens.add(m.Tokens)
		s.Last = max(s.Last, m.Last)
		s.Unpriced = s.Unpriced || m.Unpriced
	}
	return sums
}

// keyFile is a keys file open for lookups: its id, then sorted 8-byte
// keys, searched in place (a lookup reads ~20 keys of it, not the file).
type keyFile struct {
	f *os.File
	n int64
}

// openKeys opens the keys file at path if it is the one numbered id.
func openKeys(path string, id uint64) (*keyFile, error) {
	f, err := safeio.OpenOwn(path)
	if err != nil {
		return nil, err
	}
	var b [8]byte
	fi, err := f.Stat()
	if err == nil {
		_, err = f.ReadAt(b[:], 0)
	}
	if err != nil || fi.Size()%8 != 0 || binary.LittleEndian.Uint64(b[:]) != id {
		f.Close()
		return nil, errStale
	}
	return &keyFile{f: f, n: fi.Size()/8 - 1}, nil
}

func (k *keyFile) Close() error { return k.f.Close() }

// has reports whether key is in the file (a read error counts as yes: a
// full count follows).
func (k *keyFile) has(key uint64) bool {
	var b [8]byte
	lo, hi := int64(0), k.n
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, err := k.f.ReadAt(b[:], 8+mid*8); err != nil {
			return true
		}
		v := binary.LittleEndian.Uint64(b[:])
		switch {
		case v == key:
			return true
		case v < key:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return false
}
