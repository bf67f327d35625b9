package usage

import "github.com/tether-dev/tether/agent"

// dedupe keeps one copy of each repeated record, per harness, as ccusage
// does: records are taken in file order; a record whose Key was seen, or
// whose AltKey was seen when either copy is a sidechain's, is a copy; of
// two copies the one kept is the non-sidechain one, else the one with
// more tokens, else the costlier, else a fast-tier one, else the first.
// A record replacing an earlier copy takes its place (its date and model
// count).
func dedupe(files []agent.FileUsage, opts Options, rep *Report) []counted {
	var out []counted
	type tables struct{ exact, alt keyTable }
	byHarness := map[string]*tables{}
	altMore := map[uint64][]int{} // an alt key's kept records after its first
	prices := priceMemo{pricing: opts.Pricing}
	for fi := range files {
		f := &files[fi]
		t := byHarness[f.Harness]
		if t == nil {
			t = &tables{}
			byHarness[f.Harness] = t
		}
		for ri := range f.Records {
			r := &f.Records[ri]
			if r.Quirk && !opts.Corrected {
				rep.Skipped++ // as ccusage skips it
				continue
			}
			c := counted{file: f, rec: r, cost: cost(r, f.Billing, &prices)}
			if r.Key == 0 {
				out = append(out, c)
				continue
			}
			at, ok := t.exact.get(r.Key)
			if !ok && r.AltKey != 0 {
				if i, seen := t.alt.get(r.AltKey); seen {
					at, ok = altMatch(out, r, i, altMore[r.AltKey])
				}
			}
			if ok {
				rep.Duplicates++
				if replaces(c, out[at]) {
					out[at] = c
				}
				continue
			}
			t.exact.put(r.Key, len(out))
			if r.AltKey != 0 {
				if _, seen := t.alt.get(r.AltKey); seen {
					altMore[r.AltKey] = append(altMore[r.AltKey], len(out))
				} else {
					t.alt.put(r.AltKey, len(out))
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// keyTable maps a record's key (a hash, never 0) to an index: an open
// table probed linearly, the key's own bits its slot. A Go map of these
// keys was most of a warm report's deduplication (hashing a key again,
// and its growth).
type keyTable struct {
	keys []uint64
	vals []int
	n    int
}

func (t *keyTable) get(k uint64) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint64(len(t.keys) - 1)
	for i := k & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// put adds k (not in t).
func (t *keyTable) put(k uint64, v int) {
	if 2*(t.n+1) > len(t.keys) {
		old, oldVals := t.keys, t.vals
		size := max(1024, 2*len(old))
		t.keys, t.vals, t.n = make([]uint64, size), make([]int, size), 0
		for i, ok := range old {
			if ok != 0 {
				t.put(ok, oldVals[i])
			}
		}
	}
	mask := uint64(len(t.keys) - 1)
	i := k & mask
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k, v
	t.n++
}

// altMatch is the first of the kept records sharing r's alt key (first,
// then more) that r is a copy of: when either is a sidechain's.
func altMatch(out []counted, r *agent.UsageRecord, first int, more []int) (int, bool) {
	if r.Sidechain || out[first].rec.Sidechain {
		return first, true
	}
	for _, i := range more {
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
	if a, b := claudeTotal(cand.rec), claudeTotal(old.rec); a != b {
		return a > b
	}
	if cand.cost != old.cost {
		return cand.cost > old.cost
	}
	return cand.rec.Fast && !old.rec.Fast
}

// claudeTotal is the sum copies are compared by.
func claudeTotal(r *agent.UsageRecord) int64 {
	return r.Input + r.Output + r.CacheWrite + r.CacheRead
}

// cost is a record's cost: the one the agent recorded, else from the
// table (0 for a model it does not price).
func cost(r *agent.UsageRecord, billing agent.Billing, prices *priceMemo) float64 {
	if r.HasCost {
		return r.CostUSD
	}
	p, ok := prices.find(r.Model)
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
