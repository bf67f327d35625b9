package usage

import (
	"time"

	"github.com/tether-dev/tether/agent"
)

// spanMS is the time a Sum covers: a quarter of an hour, which every time
// zone's offset is a multiple of (Nepal's +5:45, Chatham's +12:45), so a
// span's records share one local date in any zone whose offsets, and
// changes of offset, fall on quarter-hours (Counted.Exact).
const spanMS = 15 * 60 * 1000

// Sum is what a file's kept records of one model spent in one span: the
// unit reports are made of (at 2,000 sessions 127,000 records were 6,400
// sums), and what the ledger keeps between reports.
type Sum struct {
	// Span is the span's start (Unix ms); with spans of 1 ms (an
	// exact count, see Counted.Exact) the record's time.
	Span int64
	// Model is the model as reported (a fast-tier record's with "-fast";
	// "" for records in no model).
	Model string
	Tokens
	// Last is the newest record's time (Unix ms).
	Last int64
	// Unpriced: a record with tokens whose model has no price (and no
	// cost of its own) is in the sum.
	Unpriced bool
}

// FileSums are a file's sums, in the order their spans and models first
// appear in it.
type FileSums struct {
	File *agent.FileUsage
	Sums []Sum
}

// spanOf is the start of t's span of width ms.
func spanOf(t, width int64) int64 {
	s := t / width * width
	if s > t { // a negative time rounds down too
		s -= width
	}
	return s
}

// sumsOf adds up kept (deduplicated, priced) records per file, span of
// width ms and model, the files in the order of their first record.
func sumsOf(kept []counted, pricing *Pricing, width int64) []FileSums {
	type sumKey struct {
		span  int64
		model string
	}
	var out []FileSums
	index := map[*agent.FileUsage]int{}
	at := []map[sumKey]int{}
	for _, k := range kept {
		fi, ok := index[k.file]
		if !ok {
			fi = len(out)
			index[k.file] = fi
			out = append(out, FileSums{File: k.file})
			at = append(at, map[sumKey]int{})
		}
		fs := &out[fi]
		sk := sumKey{spanOf(k.rec.Time, width), reportedModel(k.rec)}
		si, ok := at[fi][sk]
		if !ok {
			si = len(fs.Sums)
			at[fi][sk] = si
			fs.Sums = append(fs.Sums, Sum{Span: sk.span, Model: sk.model})
		}
		s := &fs.Sums[si]
		s.Tokens.add(tokensOf(k))
		s.Last = max(s.Last, k.rec.Time)
		if sk.model != "" && k.rec.Tokens() > 0 && !k.rec.HasCost {
			if _, priced := pricing.Find(k.rec.Model); !priced {
				s.Unpriced = true
			}
		}
	}
	return out
}

// spanDates gives spans' local dates, each worked out once, and whether
// every span asked about lies within one quarter-hour offset.
type spanDates struct {
	loc     *time.Location
	width   int64
	dates   map[int64]string
	aligned bool
}

func newSpanDates(loc *time.Location, width int64) *spanDates {
	return &spanDates{loc: loc, width: width, dates: map[int64]string{}, aligned: true}
}

func (d *spanDates) date(span int64) string {
	if s, ok := d.dates[span]; ok {
		return s
	}
	t := time.UnixMilli(span).In(d.loc)
	if d.width > 1 {
		_, off := t.Zone()
		_, end := time.UnixMilli(span + d.width - 1).In(d.loc).Zone()
		if off != end || off%(15*60) != 0 {
			d.aligned = false
		}
	}
	s := t.Format(time.DateOnly)
	d.dates[span] = s
	return s
}
