package usage

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
)

// appendResume is a Resume over files standing in for a harness's files
// after appends: a file counted past its mark is given the records of
// its new version past the mark's offset (the offset here counts
// records), as a reader's ResumeUsage would.
func appendResume(now map[string]agent.FileUsage) Resume {
	return func(f agent.FileUsage) (agent.FileUsage, bool, error) {
		cur := now[f.Path]
		if int(f.Mark.Offset) > len(cur.Records) {
			return f, false, nil // shrank: rewritten
		}
		out := cur
		out.Records = cur.Records[f.Mark.Offset:]
		out.Skipped = 0
		return out, true, nil
	}
}

// version marks every file as counted to its end (Offset: records).
func version(files ...agent.FileUsage) []agent.FileUsage {
	for i := range files {
		n := int64(len(files[i].Records))
		files[i].Mark = agent.UsageMark{Size: n, MTime: n, Offset: n, Head: 1}
	}
	return files
}

func index(files []agent.FileUsage) map[string]agent.FileUsage {
	m := map[string]agent.FileUsage{}
	for _, f := range files {
		m[f.Path] = f
	}
	return m
}

func savedLedger(t *testing.T, files []agent.FileUsage) (*Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "usage-claude-code.ledger")
	l, _ := NewLedger(path, agent.Claude, "v1", Bundled(), files)
	if err := l.Save(path, files); err != nil {
		t.Fatal(err)
	}
	l, err := LoadLedger(path, agent.Claude, "v1", Bundled())
	if err != nil {
		t.Fatal(err)
	}
	return l, path
}

func sameReports(t *testing.T, got, want *Counted) {
	t.Helper()
	for _, k := range []Kind{Daily, Sessions, Projects, Models} {
		g, w := got.Report(Options{Kind: k, Location: time.UTC, Breakdown: true}), want.Report(Options{Kind: k, Location: time.UTC, Breakdown: true})
		if math.Abs(g.Totals.CostUSD-w.Totals.CostUSD) > 1e-9 {
			t.Errorf("%s: cost %v, want %v", k, g.Totals.CostUSD, w.Totals.CostUSD)
		}
		g.Totals.CostUSD, w.Totals.CostUSD = 0, 0
		for _, r := range [][]Row{g.Rows, w.Rows} {
			for i := range r {
				r[i].CostUSD, r[i].Breakdown = 0, nil
			}
		}
		g.ByHarness, w.ByHarness = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\nledger %+v\nfull   %+v", k, g, w)
		}
	}
}

// A ledger brought up to date with appended records (new ones, copies of
// each other among them, a new file) reports what a full count does.
func TestLedgerAdvanceEqualsFullCount(t *testing.T) {
	a := claudeFile("a", rec(1, 11, false, 10, 5, "2026-03-01T10:00:00Z"), rec(1, 11, false, 10, 9, "2026-03-01T10:00:00Z"))
	b := claudeFile("b", rec(2, 12, false, 20, 1, "2026-03-01T11:00:00Z"))
	l, _ := savedLedger(t, version(a, b))
	a.Records = append(a.Records, rec(3, 13, false, 7, 1, "2026-03-02T09:00:00Z"), rec(3, 13, false, 7, 4, "2026-03-02T09:00:00Z"))
	c := claudeFile("c", rec(4, 14, false, 1, 1, "2026-03-02T23:59:00Z"), rec(0, 0, false, 2, 2, "2026-03-03T00:01:00Z"))
	now := version(a, b, c)
	if !l.Advance(now, appendResume(index(now))) {
		t.Fatal("not advanced")
	}
	sameReports(t, l.Counted(), Count(now, nil, false))
	if l.Counted().duplicates != 2 {
		t.Errorf("duplicates %d, want 2", l.Counted().duplicates)
	}
	// Saved and loaded, it is the same count, and a file unchanged since
	// is not counted again.
	path := filepath.Join(t.TempDir(), "l.ledger")
	l.keysPath = ""
	if err := l.Save(path, now); err != nil {
		t.Fatal(err)
	}
	back, err := LoadLedger(path, agent.Claude, "v1", Bundled())
	if err != nil {
		t.Fatal(err)
	}
	if !back.Advance(now, func(agent.FileUsage) (agent.FileUsage, bool, error) { panic("counted an unchanged file") }) || back.Dirty() {
		t.Fatal("an unchanged ledger changed")
	}
	sameReports(t, back.Counted(), Count(now, nil, false))
}

// Only a full count is right when a file is gone, was rewritten, or an
// appended record repeats one counted before (the copy may have to
// replace it); the ledger is left as it was.
func TestLedgerRefusesWhatNeedsAFullCount(t *testing.T) {
	a := claudeFile("a", rec(1, 11, false, 10, 5, "2026-03-01T10:00:00Z"))
	b := claudeFile("b", rec(2, 12, false, 20, 1, "2026-03-01T11:00:00Z"))
	for name, change := range map[string]func() []agent.FileUsage{
		"removed": func() []agent.FileUsage { return version(a) },
		"rewritten": func() []agent.FileUsage {
			b2 := b
			b2.Records = nil
			return version(a, b2)
		},
		"repeated key": func() []agent.FileUsage {
			b2 := b
			b2.Records = append([]agent.UsageRecord{}, b.Records[0], rec(1, 11, false, 10, 9, "2026-03-01T10:00:00Z"))
			return version(a, b2)
		},
		"repeated message": func() []agent.FileUsage {
			c := claudeFile("c", rec(77, 11, true, 1, 1, "2026-03-01T10:00:00Z"))
			return version(a, b, c)
		},
	} {
		l, _ := savedLedger(t, version(a, b))
		now := change()
		if l.Advance(now, appendResume(index(now))) {
			t.Errorf("%s: advanced", name)
		}
		if l.Dirty() {
			t.Errorf("%s: the ledger changed", name)
		}
	}
}

// A keys file not the one the ledger was written with (cut, or written
// by another report since) is not trusted: a full count follows.
func TestLedgerKeysFileStamped(t *testing.T) {
	a := claudeFile("a", rec(1, 11, false, 10, 5, "2026-03-01T10:00:00Z"))
	grown := a
	grown.Records = append(append([]agent.UsageRecord{}, a.Records...), rec(2, 12, false, 1, 1, "2026-03-01T11:00:00Z"))
	now := version(grown)
	l, path := savedLedger(t, version(a))
	other, _ := NewLedger(path, agent.Claude, "v1", Bundled(), version(a))
	if err := other.Save(path, version(a)); err != nil {
		t.Fatal(err)
	}
	if l.Advance(now, appendResume(index(now))) {
		t.Fatal("advanced over the keys file another report wrote")
	}
	l, path = savedLedger(t, version(a))
	if err := os.WriteFile(path+".keys", []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l.Advance(now, appendResume(index(now))) {
		t.Fatal("advanced over a cut keys file")
	}
	l, _ = savedLedger(t, version(a))
	if !l.Advance(now, appendResume(index(now))) {
		t.Fatal("did not advance over its own keys file")
	}
}

// A ledger kept under other counting rules or prices is not read.
func TestLedgerStale(t *testing.T) {
	a := claudeFile("a", rec(1, 11, false, 10, 5, "2026-03-01T10:00:00Z"))
	_, path := savedLedger(t, version(a))
	if _, err := LoadLedger(path, agent.Claude, "v2", Bundled()); err == nil {
		t.Error("read a ledger of other rules")
	}
	if _, err := LoadLedger(path, agent.Codex, "v1", Bundled()); err == nil {
		t.Error("read another harness's ledger")
	}
	if err := os.WriteFile(path, []byte("tether-usage-ledger\x01junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLedger(path, agent.Claude, "v1", Bundled()); err == nil {
		t.Error("read a broken ledger")
	}
}

// A count from sums is exact in a zone of quarter-hour offsets; in one
// off them (a historic offset) it says so, and a count with its records
// still reports every record on its own date.
func TestExactZones(t *testing.T) {
	f := version(claudeFile("a", rec(1, 0, false, 1, 0, "2026-03-01T23:50:00Z")))
	l, _ := savedLedger(t, f)
	kathmandu, _ := time.LoadLocation("Asia/Kathmandu")
	odd := time.FixedZone("odd", 7*60)
	if !l.Counted().Exact(kathmandu) || !l.Counted().Exact(time.UTC) {
		t.Error("not exact in a quarter-hour zone")
	}
	if l.Counted().Exact(odd) {
		t.Error("exact in a zone 7 minutes off UTC")
	}
	// 23:50 UTC is 23:57 in odd: its 15-minute span would say 23:52.
	c := Count(f, nil, false)
	if rep := c.Report(Options{Kind: Daily, Location: odd}); len(rep.Rows) != 1 || rep.Rows[0].Key != "2026-03-01" {
		t.Fatalf("rows %+v", rep.Rows)
	}
	late := version(claudeFile("a", rec(1, 0, false, 1, 0, "2026-03-01T23:56:00Z")))
	if rep := Count(late, nil, false).Report(Options{Kind: Daily, Location: odd}); len(rep.Rows) != 1 || rep.Rows[0].Key != "2026-03-02" {
		t.Fatalf("a record 23:56 UTC is 00:03 on the 2nd in odd: rows %+v", rep.Rows)
	}
}
