package opencodesessions_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// Find reads one session as List has it; an id the database lacks is
// not found, and a database that is not there is an error (nothing is
// known), not "not found". Latest is the last one updated in a directory
// since a time (of the samples, the overflow's, 1796151331877).
func TestFindAndLatest(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	f := reader(data).(agent.Finder)
	ctx := context.Background()
	s, ok, err := f.Find(ctx, sessiontest.SampleOpenCode)
	if err != nil || !ok || s.Cwd != "/home/example/proj" || s.Context == nil || s.Context.Tokens != 1200 {
		t.Fatalf("find: %+v %v %v", s, ok, err)
	}
	if _, ok, err := f.Find(ctx, "ses_nope"); ok || err != nil {
		t.Errorf("unknown id: %v %v", ok, err)
	}
	if _, _, err := reader(filepath.Join(data, "gone")).(agent.Finder).Find(ctx, sessiontest.SampleOpenCode); err == nil {
		t.Error("a missing database said the session is not there")
	}
	l, ok, err := f.Latest(ctx, "/home/example/proj", time.UnixMilli(1796150000000))
	if err != nil || !ok || l.ID != sessiontest.SampleOpenCodeOverflow {
		t.Errorf("latest: %s %v %v", l.ID, ok, err)
	}
	if _, ok, _ := f.Latest(ctx, "/home/example/proj", time.UnixMilli(1796151331878)); ok {
		t.Error("latest: a session updated before since")
	}
	if _, ok, _ := f.Latest(ctx, "/home/example/other", time.Time{}); ok {
		t.Error("latest: a session of another directory")
	}
}
