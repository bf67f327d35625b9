package usage

import (
	"slices"

	"github.com/tether-dev/tether/agent"
)

// dedupe keeps one copy of each repeated record, per harness, as ccusage
// does: records are taken in file order; a record whose Key was seen, or
// whose AltKey was seen when either copy is a sidechain's, is a copy; of
// two copies the one kept is the non-sidechain one, else the one with
// more tokens, else the costlier, else a fast-tier one, else the first.
// A record replacing an earlier copy takes its place (its date and model
// count).
func dedupe(files []agent.FileUsage, opts Options, rep *Report) []counted {
	n := 0
	for i := range files {
		n += len(files[i].Records)
	}
	out := make([]counted, 0, n)
	var harnesses []string
	for i := range files {
		if !slices.Contains(harnesses, files[i].Harness) {
			harnesses = append(harnesses, files[i].Harness)
		}
	}
	for _, h := range harnesses {
		out = dedupeHarness(files, h, n, out, opts, rep)
	}
	return out
}

// dedupeHarness is dedupe over the files of one harness (a record never
// repeats another harness's), appended to out. Its maps are of 8-byte
// keys and 4-byte indexes, sized once; a message id's further copies are
// kept apart from its first (almost every id has one), not in a slice
// per id.
func dedupeHarness(files []agent.FileUsage, harness string, n int, out []counted, opts Options, rep *Report) []counted {
	exact := make(map[uint64]int32, n)
	alt := make(map[uint64]int32, n)
	altMore := map[uint64][]int32{}
	for fi := range files {
		f := &files[fi]
		if f.Harness != harness {
			continue
		}
		for ri := range f.Records {
			r := &f.Records[ri]
			if r.Quirk && !opts.Corrected {
				rep.Skipped++ // as ccusage skips it
				continue
			}
			c := counted{file: f, rec: r, cost: cost(r, f.Billing, opts.Pricing)}
			if r.Key == 0 {
				out = append(out, c)
				continue
			}
			at, ok := exact[r.Key]
			if !ok && r.AltKey != 0 {
				at, ok = sidechainCopy(out, r, alt, altMore)
			}
			if ok {
				rep.Duplicates++
				if replaces(c, out[at]) {
					out[at] = c
				}
				continue
			}
			exact[r.Key] = int32(len(out))
			if r.AltKey != 0 {
				if _, seen := alt[r.AltKey]; seen {
					altMore[r.AltKey] = append(altMore[r.AltKey], int32(len(out)))
				} else {
					alt[r.AltKey] = int32(len(out))
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// sidechainCopy finds the record r is a copy of by its message id: one
// of those kept under r.AltKey, when r or it is a sidechain's.
func sidechainCopy(out []counted, r *agent.UsageRecord, alt map[uint64]int32, more map[uint64][]int32) (int32, bool) {
	first, ok := alt[r.AltKey]
	if !ok {
		return 0, false
	}
	if r.Sidechain || out[first].rec.Sidechain {
		return first, true
	}
	for _, i := range more[r.AltKey] {
		if r.Sidechain || out[i].rec.Sidechain {
			return i, true
		}
	}
	return 0, false
}

func replaces(cand, old counted) bool {
	if cand.rec.Sidechain != old.rec.Sidechain {
		return old.rec.Sidechain
	}
	if a, b := cand.rec.CopyTotal(), old.rec.CopyTotal(); a != b {
		return a > b
	}
	if cand.cost != old.cost {
		return cand.cost > old.cost
	}
	return cand.rec.Fast && !old.rec.Fast
}

// cost is a record's cost: the one the agent recorded, else from the
// table (0 for a model it does not price).
func cost(r *agent.UsageRecord, billing agent.Billing, pricing *Pricing) float64 {
	if r.HasCost {
		return r.CostUSD
	}
	p, ok := pricing.Find(r.Model)
	if !ok {
		return 0
	}
	if billing == agent.BillingFlat {
		in, out, cached, listed := p.Input, p.Output, p.CacheRead, p.CacheReadListed
		// A request past a context tier is priced whole at the tier's
		// prices (ccusage 20.0.24 reads models.dev's tiers so).
		for _, t := range p.Tiers {
			size := t.Size
			if p.Near {
				size = min(size, 200_000)
			}
			if r.Input+r.CacheRead > size {
				in, out, cached, listed = t.Input, t.Output, t.CacheRead, t.CacheReadListed
			}
		}
		if !listed {
			cached = in
		}
		return float64(r.Input)*in + float64(r.CacheRead)*cached + float64(r.Output)*out
	}
	w5m := r.CacheWrite - r.CacheWrite1h
	c := tiered(r.Input, p.Input, p.InputAbove) + tiered(r.Output, p.Output, p.OutputAbove) +
		tiered(w5m, p.CacheWrite, p.CacheWriteAbove) + tiered(r.CacheWrite1h, 2*p.Input, 2*p.InputAbove) +
		tiered(r.CacheRead, p.CacheRead, p.CacheReadAbove)
	if r.Fast {
		c *= p.Fast
	}
	return c
}

// tiered prices n tokens at base, those past 200,000 at above when the
// model has such a tier.
func tiered(n int64, base, above float64) float64 {
	const threshold = 200_000
	if n <= 0 {
		return 0
	}
	if above > 0 && n > threshold {
		return threshold*base + float64(n-threshold)*above
	}
	return float64(n) * base
}
