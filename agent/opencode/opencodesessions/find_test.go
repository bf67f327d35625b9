package opencodesessions_test

import (
	"context"
	"path/filepath"
	"slices"
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

// IDsWithPrefix expands a prefix of an id or of its body (what tether
// shows), ASCII case ignored; a wildcard in the prefix is a plain
// character, and a match inside the id does not count.
func TestIDsWithPrefix(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	f := reader(data).(agent.PrefixFinder)
	ctx := context.Background()
	both := []string{sessiontest.SampleOpenCodeOverflow, sessiontest.SampleOpenCode}
	for prefix, want := range map[string][]string{
		"dcd13948":    {sessiontest.SampleOpenCode},
		"DCD13948":    {sessiontest.SampleOpenCode},
		"ses_dcd09f":  {sessiontest.SampleOpenCodeOverflow},
		"dcd":         both,
		"ses_":        both,
		"cd139":       nil,
		"d%":          nil,
		"dcd_":        nil,
		"ffff0000ffe": nil,
	} {
		got, err := f.IDsWithPrefix(ctx, prefix, 10)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %q %v, want %q", prefix, got, err, want)
		}
	}
	if got, _ := f.IDsWithPrefix(ctx, "dcd", 1); len(got) != 1 {
		t.Errorf("limit 1: %q", got)
	}
	if _, err := reader(filepath.Join(data, "gone")).(agent.PrefixFinder).IDsWithPrefix(ctx, "dcd1", 10); err == nil {
		t.Error("a missing database: no error")
	}
}
