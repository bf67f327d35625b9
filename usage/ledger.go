package usage

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/safeio"
)

// A Ledger is one harness's count kept between reports: every file it
// counted, with the mark its count stopped at and the sums of its kept
// records (not the records), and beside it (the keys file) the sorted
// dedup keys of every record counted. A report brings it up to date by
// counting only what was appended to the files since, and counts the
// harness again in full when something else happened: a file removed,
// rewritten or new copies of a record already counted (Advance).
//
// At 10,000 generated sessions a warm report read 19 MB of per-file
// records and deduplicated them all (0.59 s); from a ledger it reads the
// sums alone (~0.1 s).
type Ledger struct {
	harness, version, pricingID string
	pricing                     *Pricing
	// skipped and duplicates are the deduplication's own: records ccusage
	// drops (Quirk) and copies counted once.
	skipped, duplicates int
	files               []ledgerFile
	// keysPath is the keys file; keysID the random number it starts
	// with, which the ledger written with it names (two reports at once
	// may each write the pair: a ledger never trusts the other's keys);
	// recent the keys counted since.
	keysPath string
	keysID   uint64
	recent   map[uint64]bool
	dirty    bool
}

type ledgerFile struct {
	agent.FileUsage // without records
	sums            []Sum
}

// ledgerVersion changes whenever the ledger's layout or the rules its
// sums were made by (dedupe, cost, sumsOf) change.
const ledgerVersion = 1

// maxRecent is how many keys a ledger takes on before its keys file is
// written again (by a full count: a few hundred reports' appends).
const maxRecent = 1 << 16

var errStale = errors.New("usage ledger: kept under other rules")

// pricingID names a pricing table (a regenerated table is another).
func pricingID(p *Pricing) string {
	return p.Source + "|" + p.Taken + "|" + strconv.Itoa(p.Len())
}

// NewLedger counts files in full (Count, by the default rules) and keeps
// the count as a ledger for path (its keys file beside it); version is
// the reader's UsageVersion. Save writes it.
func NewLedger(path, harness, version string, pricing *Pricing, files []agent.FileUsage) (*Ledger, *Counted) {
	c := Count(files, pricing, false)
	l := &Ledger{harness: harness, version: version, pricing: c.pricing, pricingID: pricingID(c.pricing),
		skipped: c.skipped, duplicates: c.duplicates, keysPath: keysFile(path), dirty: true}
	at := map[*agent.FileUsage]int{}
	for i := range files {
		f := files[i]
		f.Records, f.Folded = nil, 0 // the folded copies are in duplicates
		at[&files[i]] = len(l.files)
		l.files = append(l.files, ledgerFile{FileUsage: f})
		l.skipped -= f.Skipped
	}
	for _, fs := range c.sums {
		l.files[at[fs.File]].sums = fs.Sums
	}
	return l, c
}

// recordKeys are the dedup keys of files' records, sorted, each once.
func recordKeys(files []agent.FileUsage) []uint64 {
	var keys []uint64
	for i := range files {
		for _, r := range files[i].Records {
			for _, k := range [2]uint64{r.Key, r.AltKey} {
				if k != 0 {
					keys = append(keys, k)
				}
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// Counted is the ledger's count, for reports (Counted.Exact tells
// whether a zone's dates can be had from its sums).
func (l *Ledger) Counted() *Counted {
	c := &Counted{pricing: l.pricing, skipped: l.skipped, duplicates: l.duplicates}
	for i := range l.files {
		f := &l.files[i]
		c.skipped += f.Skipped
		if len(f.sums) > 0 {
			c.sums = append(c.sums, FileSums{File: &f.FileUsage, Sums: f.sums})
		}
	}
	return c
}

// Merge is the counts of several harnesses as one (each harness is
// deduplicated on its own, so their counts add up).
func Merge(cs ...*Counted) *Counted {
	out := &Counted{pricing: Bundled()}
	whole := true
	for _, c := range cs {
		out.pricing = c.pricing
		out.sums = append(out.sums, c.sums...)
		out.kept = append(out.kept, c.kept...)
		out.skipped += c.skipped
		out.duplicates += c.duplicates
		whole = whole && (c.kept != nil || len(c.sums) == 0)
	}
	if !whole {
		out.kept = nil
	}
	return out
}

// Dirty reports whether the ledger changed since it was loaded.
func (l *Ledger) Dirty() bool { return l.dirty }

// keysFile is where a ledger at path keeps its keys.
func keysFile(path string) string { return path + ".keys" }

// Save writes the ledger at path (0600, atomically), and the keys of
// files' records in its keys file first when files is not nil (a full
// count's).
func (l *Ledger) Save(path string, files []agent.FileUsage) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	l.keysPath = keysFile(path)
	if files != nil {
		keys := recordKeys(files)
		id := rand.Uint64()
		b := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+8*len(keys)), id)
		for _, k := range keys {
			b = binary.LittleEndian.AppendUint64(b, k)
		}
		if err := atomicfile.WriteBytes(l.keysPath, b, atomicfile.Options{Perm: 0o600, NoSync: true}); err != nil {
			return err
		}
		l.keysID, l.recent = id, nil
	}
	// A lost ledger is counted again: not worth an fsync.
	if err := atomicfile.WriteBytes(path, l.encode(), atomicfile.Options{Perm: 0o600, NoSync: true}); err != nil {
		return err
	}
	l.dirty = false
	return nil
}

// LoadLedger reads the ledger at path; one kept for another harness,
// under other counting rules (version) or prices is errStale.
func LoadLedger(path, harness, version string, pricing *Pricing) (*Ledger, error) {
	data, err := safeio.ReadOwn(path)
	if err != nil {
		return nil, err
	}
	l, err := decodeLedger(data)
	if err != nil {
		return nil, err
	}
	if l.harness != harness || l.version != version || l.pricingID != pricingID(pricing) {
		return nil, errStale
	}
	l.pricing, l.keysPath = pricing, keysFile(path)
	return l, nil
}
