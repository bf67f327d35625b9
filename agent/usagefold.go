package agent

// FoldCopies folds the repeated copies of a response in one transcript's
// records (in file order) as a report's deduplication would count them,
// so fewer records are kept: Claude Code writes a line per content block
// of a message, each with the message's usage, and at 2,000 generated
// sessions 105,000 records were 19,000 responses.
//
// Of a response's copies r1..rn (one Key) only r2..rn are folded, into
// the first of the fullest of them (by CopyTotal), where r2 was: r1 may
// be taken by an earlier sidechain copy matched by its message id (its
// AltKey), which leaves r2 to count on its own (ccusage's rule, which
// the deduplication follows), so r1 and the rest must stay apart. A
// response's copies are folded only when nothing else in the file can
// meet them: none is a sidechain's or a quirk, no other record has their
// AltKey, and the fullest do not tie with differing prices (which one
// counts then depends on the price table).
//
// folded is how many records were folded away (n-2 a response). ok is
// false when a record that stands for folded copies (Folded) is in a
// response that can no longer be folded: the transcript must be counted
// again from its start.
func FoldCopies(recs []UsageRecord) (out []UsageRecord, folded int, ok bool) {
	groups, foldable := copyGroups(recs)
	drop := make(map[int]bool)
	for key, idx := range groups {
		if !foldable[key] {
			for _, i := range idx {
				if recs[i].Folded {
					return recs, 0, false
				}
			}
			continue
		}
		if len(idx) < 3 {
			continue // r1 and one more: nothing to fold
		}
		best, tie := fullest(recs, idx[1:])
		if tie {
			for _, i := range idx {
				if recs[i].Folded {
					return recs, 0, false
				}
			}
			continue
		}
		w := recs[best]
		w.Folded = true
		recs[idx[1]] = w
		for _, i := range idx[2:] {
			drop[i] = true
		}
		folded += len(idx) - 2
	}
	if folded == 0 {
		return recs, 0, true
	}
	out = recs[:0]
	for i := range recs {
		if !drop[i] {
			out = append(out, recs[i])
		}
	}
	return out, folded, true
}

// copyGroups are the indexes of recs by Key (none for Key 0), and which
// keys' copies nothing else in the file can meet (see FoldCopies).
func copyGroups(recs []UsageRecord) (map[uint64][]int, map[uint64]bool) {
	groups := map[uint64][]int{}
	foldable := map[uint64]bool{}
	altKey := map[uint64]uint64{} // AltKey -> the one Key it has (0: more than one)
	for i := range recs {
		r := &recs[i]
		if r.Key == 0 {
			continue
		}
		if _, seen := groups[r.Key]; !seen {
			foldable[r.Key] = true
		}
		groups[r.Key] = append(groups[r.Key], i)
		if r.Sidechain || r.Quirk {
			foldable[r.Key] = false
		}
		if r.AltKey != 0 {
			if k, seen := altKey[r.AltKey]; seen && k != r.Key {
				altKey[r.AltKey] = 0
			} else if !seen {
				altKey[r.AltKey] = r.Key
			}
		}
	}
	for i := range recs {
		r := &recs[i]
		if r.Key != 0 && r.AltKey != 0 && altKey[r.AltKey] != r.Key {
			foldable[r.Key] = false
		}
	}
	// A sidechain's or a quirk's record without a Key of its own still
	// meets copies by its AltKey.
	for i := range recs {
		r := &recs[i]
		if r.Key == 0 && r.AltKey != 0 {
			if k := altKey[r.AltKey]; k != 0 {
				foldable[k] = false
			}
		}
	}
	return groups, foldable
}

// fullest is the index (of idx) of the first record with the greatest
// CopyTotal; tie: another as full differs in what it would cost.
func fullest(recs []UsageRecord, idx []int) (best int, tie bool) {
	best = idx[0]
	for _, i := range idx[1:] {
		if recs[i].CopyTotal() > recs[best].CopyTotal() {
			best = i
		}
	}
	for _, i := range idx {
		if i != best && recs[i].CopyTotal() == recs[best].CopyTotal() && !samePrice(&recs[i], &recs[best]) {
			return best, true
		}
	}
	return best, false
}

// samePrice: the two would cost the same under any price table.
func samePrice(a, b *UsageRecord) bool {
	return a.Model == b.Model && a.Fast == b.Fast && a.HasCost == b.HasCost && a.CostUSD == b.CostUSD &&
		a.Input == b.Input && a.Output == b.Output && a.CacheWrite == b.CacheWrite &&
		a.CacheWrite1h == b.CacheWrite1h && a.CacheRead == b.CacheRead
}
