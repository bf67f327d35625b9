package identity

import "testing"

// Codex thread ids are UUIDv7: threads started in the same minute share
// their first eight characters.
func TestAbbreviatorUUIDv7SameMinute(t *testing.T) {
	ids := []string{
		"019ad5e2-8a41-7c3e-9f00-000000000001",
		"019ad5e2-8b07-7d11-8e00-000000000002",
		"019ad5e2-8b09-7a20-8e00-000000000003",
		"d9f7843f-07d6-4b50-9048-40676f77f965",
	}
	a := NewAbbreviator(ids)
	want := map[string]string{
		ids[0]: "019ad5e2-8a",
		ids[1]: "019ad5e2-8b07",
		ids[2]: "019ad5e2-8b09",
		ids[3]: "d9f7843f",
	}
	seen := map[string]bool{}
	for id, w := range want {
		got := a.Short(id)
		if got != w {
			t.Errorf("Short(%s) = %q, want %q", id, got, w)
		}
		if seen[got] {
			t.Errorf("%q given twice", got)
		}
		seen[got] = true
	}
	// An id outside the set is still told apart from its neighbours.
	if got := a.Short("019ad5e2-8b08-7000-8000-000000000009"); got != "019ad5e2-8b08" {
		t.Errorf("outsider: %q", got)
	}
	// Prefixed ids abbreviate by their body; a nil abbreviator is ShortID.
	if got := NewAbbreviator([]string{"session_" + ids[3]}).Short("cse_" + ids[3]); got != "d9f7843f" {
		t.Errorf("prefixed: %q", got)
	}
	var none *Abbreviator
	if got := none.Short(ids[0]); got != "019ad5e2" {
		t.Errorf("nil: %q", got)
	}
}
