package trim

import (
	"strings"
	"testing"
)

// Every uuid interns to one number and comes back byte for byte: the
// canonical ones through their 16 bytes, the rest verbatim.
func TestUUIDTabRoundTrip(t *testing.T) {
	tab := newUUIDTab()
	cases := []string{
		"0445c8da-a531-4ad2-bbf4-7b32952ebb69", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
		"0445C8DA-a531-4ad2-bbf4-7b32952ebb69", "0445c8da-a531-4ad2-bbf4-7b32952ebb6", "0445c8da-a531-4ad2-bbf4-7b32952ebb690",
		"0445c8da_a531-4ad2-bbf4-7b32952ebb69", "0445c8daa531-4ad2-bbf4-7b32952ebb69-", "0445c8da-a531-4ad2-bbf4-7b32952ebbg9",
		"{445c8da-a531-4ad2-bbf4-7b32952ebb69", "a", "uuid with \"quotes\" and \\ and é", strings.Repeat("-", 36),
	}
	ids := map[uid]string{}
	for _, c := range cases {
		id := tab.intern(c)
		if id == 0 {
			t.Fatalf("%q interned as 0", c)
		}
		if other, dup := ids[id]; dup && other != c {
			t.Fatalf("%q and %q share uid %d", c, other, id)
		}
		ids[id] = c
		if again := tab.intern(strings.Clone(c)); again != id {
			t.Errorf("%q interned twice: %d, %d", c, id, again)
		}
		if got := tab.text(id); got != c {
			t.Errorf("text(intern(%q)) = %q", c, got)
		}
		_, canonical := parseUUID(c)
		if canonical != (c == strings.ToLower(c) && len(c) == 36 && strings.Count(c, "-") == 4 && c[8] == '-' && !strings.ContainsAny(c, "g{_\\\" ")) {
			t.Errorf("parseUUID(%q) canonical = %v", c, canonical)
		}
	}
	if tab.intern("") != 0 || tab.text(0) != "" || string(tab.quoted(nil, 0)) != "null" {
		t.Error("the empty uuid is not 0 / null")
	}
	if got := string(tab.quoted(nil, tab.intern(`a"b`))); got != `"a\"b"` {
		t.Errorf("quoted = %s", got)
	}
}

// FuzzUUIDTab: any string round-trips, and equal strings share a uid.
func FuzzUUIDTab(f *testing.F) {
	f.Add("0445c8da-a531-4ad2-bbf4-7b32952ebb69", "0445c8da-a531-4ad2-bbf4-7b32952ebb6A")
	f.Fuzz(func(t *testing.T, a, b string) {
		tab := newUUIDTab()
		ia, ib := tab.intern(a), tab.intern(b)
		if tab.text(ia) != a || tab.text(ib) != b || (ia == ib) != (a == b) {
			t.Fatalf("%q -> %d -> %q, %q -> %d -> %q", a, ia, tab.text(ia), b, ib, tab.text(ib))
		}
	})
}
