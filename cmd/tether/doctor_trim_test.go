package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 13.7: doctor reports what killed trims left in projects/ and
// --fix removes it.
func TestDoctorTrimLeftovers(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "src", "proj")
	os.MkdirAll(dir, 0o755)
	id := "d9f7843f-07d6-4b50-9048-40676f77f965"
	path := seedSession(t, ta, id, dir)
	pd := filepath.Dir(path)
	temp := filepath.Join(pd, "."+id+".jsonl.trim-4242")
	os.WriteFile(temp, []byte("half a transcript"), 0o600)
	os.WriteFile(path+".lock", nil, 0o600)
	doctor := func(args ...string) string {
		ta.out.Reset()
		ta.run(append([]string{"doctor"}, args...)...)
		for _, l := range strings.Split(ta.out.String(), "\n") {
			// The check's name column, not any line whose paths hold
			// "trim" (a checkout under …/trim/… would match that).
			if f := strings.Fields(l); len(f) > 1 && f[1] == "trim" {
				return l
			}
		}
		return ""
	}
	if l := doctor(); !strings.HasPrefix(l, "warn") || !strings.Contains(l, "2 files") {
		t.Fatalf("leftovers not reported: %q\n%s", l, ta.out)
	}
	if l := doctor("--fix"); !strings.Contains(l, "fixed") {
		t.Errorf("--fix: %q", l)
	}
	for _, p := range []string{temp, path + ".lock"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s not removed", p)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("the transcript itself was removed")
	}
	if l := doctor(); !strings.HasPrefix(l, "ok") {
		t.Errorf("after --fix: %q", l)
	}
}
