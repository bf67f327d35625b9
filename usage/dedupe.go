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
	type keyOf struct {
		harness string
		key     uint64
	}
	exact := map[keyOf]int{}
	alt := map[keyOf][]int{}
	for fi := range files {
		f := &files[fi]
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
			ek := keyOf{f.Harness, r.Key}
			at, ok := exact[ek]
			if !ok && r.AltKey != 0 {
				for _, i := range alt[keyOf{f.Harness, r.AltKey}] {
					if r.Sidechain || out[i].rec.Sidechain {
						at, ok = i, true
						break
					}
				}
			}
			if ok {
				rep.Duplicates++
				if replaces(c, out[at]) {
					out[at] = c
				}
				continue
			}
			exact[ek] = len(out)
			if r.AltKey != 0 {
				ak := keyOf{f.Harness, r.AltKey}
				alt[ak] = append(alt[ak], len(out))
			}
			out = append(out, c)
		}
	}
	return out
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
