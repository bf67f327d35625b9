package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// ShortIDs gives every id what Abbrev(ss).Short gives it: duplicates,
// prefixed ids, ids sharing long prefixes, short and empty ones, and
// zero bytes that the integer keys must not confuse with shorter ids.
func TestShortIDsMatchAbbreviator(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	ids := []string{"", "_", "a", "ab\x00", "ab", "abc", "session_abcdef0123", "cse_abcdef0123", "abcdef01", "abcdef0", "abcdef012",
		"019ad5e2-8a41-7c3e-9f00-000000000001", "019ad5e2-8b07-7d11-8e00-000000000002", "019ad5e2-8b09-7a20-8e00-000000000003",
		"019ad5e2-8b09-7a20-8e00-000000000003", "\xff\xff", "x_"}
	for i := range 5000 {
		switch i % 3 {
		case 0:
			ids = append(ids, fmt.Sprintf("%08x-%04x-7000-8000-%012x", 0x019ad5e2+rng.Intn(4), rng.Intn(1<<16), rng.Int63n(1<<48)))
		case 1:
			ids = append(ids, fmt.Sprintf("%08x-0000-4000-8000-000000000000", rng.Uint32()))
		default:
			ids = append(ids, ids[rng.Intn(len(ids))])
		}
	}
	ss := make([]Session, len(ids))
	for i, id := range ids {
		ss[i].ID = id
	}
	ab := Abbrev(ss)
	got := ShortIDs(ss)
	for i, id := range ids {
		if want := ab.Short(id); got[i] != want {
			t.Errorf("ShortIDs[%d] (%q) = %q, want %q", i, id, got[i], want)
		}
	}
	if len(ShortIDs(nil)) != 0 {
		t.Error("nil")
	}
}

// radixSort orders as a stable sort by key does, equal keys included.
func TestRadixSortStable(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		es := make([]keyIndex, n)
		for i := range es {
			k := rng.Uint64()
			switch i % 4 {
			case 0:
				k &= 0xff00ff // few distinct bytes: skipped passes and ties
			case 1:
				k = uint64(rng.Intn(5))
			}
			es[i] = keyIndex{k, int32(i)}
		}
		want := slices.Clone(es)
		slices.SortStableFunc(want, func(a, b keyIndex) int { return cmp.Compare(a.key, b.key) })
		radixSort(es)
		if !slices.Equal(es, want) {
			t.Fatalf("n=%d: radix order differs", n)
		}
	}
}

// OpenCode's ids (ses_ + time-ordered hex + random) share long prefixes:
// each is shown by the shortest unique prefix of its body, and that
// short form, any longer prefix of the body, the whole id or the
// opencode: key resolves to it.
func TestOpenCodeShortIDsResolve(t *testing.T) {
	ids := []string{"ses_dcd139480ffeoAscKd2JgtbA1X", "ses_dcd139480fffXyZabc1234567Q", "ses_dcd09fbc5ffeVjgWt4UDgHeQf3"}
	var ss []Session
	for _, id := range ids {
		ss = append(ss, Session{Harness: OpenCode, ID: id})
	}
	short := ShortIDs(ss)
	if short[0] != "dcd139480ffe" || short[1] != "dcd139480fff" || short[2] != "dcd09fbc" {
		t.Errorf("short ids: %q", short)
	}
	for i, q := range []string{short[0], short[1], short[2], "dcd139480ffeoAsc", ids[0], "opencode:" + ids[2], "opencode:" + short[2]} {
		want := ids[min(i, 2)]
		if i == 3 || i == 4 {
			want = ids[0]
		}
		if s, err := Resolve(ss, q); err != nil || s.ID != want {
			t.Errorf("Resolve(%q): %q %v, want %q", q, s.ID, err, want)
		}
	}
	var amb *AmbiguousError
	if _, err := Resolve(ss, "dcd13948"); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("a shared prefix: %v", err)
	}
}
