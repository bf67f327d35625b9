package usage

import (
	"errors"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/bincodec"
)

const ledgerMagic = "tether-usage-ledger"

// encode writes the ledger: its header, the keys counted since the keys
// file, the models its sums name (once), then each file with its mark
// and sums (spans as deltas).
func (l *Ledger) encode() []byte {
	w := &bincodec.Writer{}
	w.Str(l.harness)
	w.Str(l.version)
	w.Str(l.pricingID)
	w.Int(int64(l.skipped))
	w.Int(int64(l.duplicates))
	w.Fixed64(l.keysID)
	w.Uint(uint64(len(l.recent)))
	for k := range l.recent {
		w.Fixed64(k)
	}
	var models []string
	index := map[string]uint64{}
	for i := range l.files {
		for _, s := range l.files[i].sums {
			if _, ok := index[s.Model]; !ok {
				index[s.Model] = uint64(len(models))
				models = append(models, s.Model)
			}
		}
	}
	w.Strs(models)
	w.Uint(uint64(len(l.files)))
	for i := range l.files {
		putLedgerFile(w, &l.files[i], index)
	}
	return bincodec.Frame(ledgerMagic, ledgerVersion, w.B)
}

func putLedgerFile(w *bincodec.Writer, f *ledgerFile, models map[string]uint64) {
	w.Str(f.Path)
	w.Str(f.Session)
	w.Str(f.Project)
	w.Byte(byte(f.Billing))
	w.Int(int64(f.Skipped))
	m := f.Mark
	for _, v := range []int64{m.Size, m.MTime, m.Offset} {
		w.Int(v)
	}
	w.Fixed64(m.Head)
	w.Str(string(m.State))
	w.Bool(m.Again)
	w.Uint(uint64(len(f.sums)))
	var last int64
	for _, s := range f.sums {
		w.Int(s.Span - last)
		last = s.Span
		w.Uint(models[s.Model])
		for _, v := range []int64{s.Input, s.Output, s.CacheWrite, s.CacheRead, s.Reasoning, s.Total, s.Last - s.Span} {
			w.Int(v)
		}
		w.Float(s.CostUSD)
		w.Bool(s.Unpriced)
	}
}

var errLedger = errors.New("usage ledger: unreadable")

func decodeLedger(data []byte) (*Ledger, error) {
	body, ok := bincodec.Unframe(data, ledgerMagic, ledgerVersion)
	if !ok {
		return nil, errLedger
	}
	r := bincodec.NewReader(body)
	l := &Ledger{harness: r.Str(), version: r.Str(), pricingID: r.Str()}
	l.skipped, l.duplicates = int(r.Int()), int(r.Int())
	l.keysID = r.Fixed64()
	if n := r.Count(); n > 0 {
		l.recent = make(map[uint64]bool, n)
		for range n {
			l.recent[r.Fixed64()] = true
		}
	}
	models := make([]string, r.Count())
	for i := range models {
		models[i] = r.Str()
	}
	l.files = make([]ledgerFile, r.Count())
	for i := range l.files {
		getLedgerFile(r, &l.files[i], models)
		l.files[i].Harness = l.harness
	}
	if !r.Done() {
		return nil, errLedger
	}
	return l, nil
}

func getLedgerFile(r *bincodec.Reader, f *ledgerFile, models []string) {
	f.Path, f.Session, f.Project = r.Str(), r.Str(), r.Str()
	f.Billing = agent.Billing(r.Byte())
	f.Skipped = int(r.Int())
	f.Mark.Size, f.Mark.MTime, f.Mark.Offset = r.Int(), r.Int(), r.Int()
	f.Mark.Head = r.Fixed64()
	if s := r.Str(); s != "" {
		f.Mark.State = []byte(s)
	}
	f.Mark.Again = r.Bool()
	n := r.Count()
	if n == 0 {
		return
	}
	f.sums = make([]Sum, n)
	var last int64
	for i := range f.sums {
		s := &f.sums[i]
		last += r.Int()
		s.Span = last
		if m := r.Uint(); m < uint64(len(models)) {
			s.Model = models[m]
		} else {
			r.Fail()
			return
		}
		s.Input, s.Output, s.CacheWrite, s.CacheRead, s.Reasoning, s.Total = r.Int(), r.Int(), r.Int(), r.Int(), r.Int(), r.Int()
		s.Last = s.Span + r.Int()
		s.CostUSD = r.Float()
		s.Unpriced = r.Bool()
	}
}
