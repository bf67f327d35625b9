package shellinit

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestSegmentStripsControlCharacters(t *testing.T) {
	u := Usage{Model: "evil\x1b]0;title\x07\nmodel", Percent: 50}
	got := Segment(u, SegmentOptions{Format: "{model} {pct}%", Shell: "plain", Warn: 60, Crit: 80})
	if got != "evil]0;title model 50%" {
		t.Errorf("%q", got)
	}
	if got := Segment(Usage{Percent: 99.6, Tokens: 1_250_000, Window: 1_000_000}, SegmentOptions{Format: "{tokens}/{window} {bar} {pct}", Shell: "zsh", Warn: 60, Crit: 80}); got != "1.3M/1M ▰▰▰▰▰ 100" {
		t.Errorf("%q", got)
	}
}

func TestStampGarbageCollection(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	os.WriteFile(state, nil, 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(state, old, old)
	// A stamp of a process that has exited, and one of a live process.
	dead := filepath.Join(dir, "prompt", "2147483646.stamp")
	live := filepath.Join(dir, "prompt", strconv.Itoa(os.Getppid())+".stamp")
	os.MkdirAll(filepath.Dir(dead), 0o700)
	os.WriteFile(dead, nil, 0o600)
	os.WriteFile(live, nil, 0o600)
	mine, err := StampPath(dir, strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if err := SyncStamp(mine, state, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("a dead shell's stamp was kept")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("a live shell's stamp was removed")
	}
	if st, err := os.Stat(mine); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("own stamp: %v %v", err, st)
	}
	for _, bad := range []string{"", "-1", "../x", "1/2", "abc"} {
		if _, err := StampPath(dir, bad); err == nil {
			t.Errorf("stamp id %q accepted", bad)
		}
	}
}
