package todayspend

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRoundTripAndOtherDays(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cache", "usage-today")
	if _, ok := Read(p, "2026-03-01"); ok {
		t.Fatal("a missing file read")
	}
	at := time.Unix(1772359200, 0)
	if err := Write(p, Spend{Date: "2026-03-01", CostUSD: 1.5, Tokens: 42, Counted: at}); err != nil {
		t.Fatal(err)
	}
	s, ok := Read(p, "2026-03-01")
	if !ok || s.CostUSD != 1.5 || s.Tokens != 42 || !s.Counted.Equal(at) {
		t.Fatalf("%+v %v", s, ok)
	}
	if _, ok := Read(p, "2026-03-02"); ok {
		t.Fatal("yesterday's spend read as today's")
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	for _, junk := range []string{"2026-03-01 x 1 1\n", "2026-03-01 -1 1 1\n", "2026-03-01 1\n"} {
		os.WriteFile(p, []byte(junk), 0o600)
		if _, ok := Read(p, "2026-03-01"); ok {
			t.Errorf("%q read", junk)
		}
	}
}
