package wrap

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/internal/eventlog"
)

func (f *fixture) runArchived(st *archive.Store, args ...string) int {
	f.t.Helper()
	code, err := Run(Options{
		Agent: claude.New(f.claude), Bin: "/usr/bin/claude-real", Args: args, Root: f.root, Env: []string{"HOME=" + f.home},
		Stderr: &f.stderr, Archive: st,
		Log: eventlog.Open(eventlog.Options{Path: f.logPath}),
		Exec: func(c Child) (int, error) {
			f.calls = append(f.calls, c)
			return 0, nil
		},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return code
}

func TestResumeRestoresFromArchive(t *testing.T) {
	for _, mode := range []string{archive.ModeLink, archive.ModeCopy} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t)
			body := userRecord(f.root.Path)
			p := f.writeTranscript(f.root.Path, body)
			st := &archive.Store{Dir: filepath.Join(f.home, "archive"), Mode: mode}
			if _, err := st.Archive(archive.Source{Harness: eventlog.ClaudeCode, Root: f.claude, Path: p}); err != nil {
				t.Fatal(err)
			}
			os.Remove(p) // the cleanup
			args := []string{"--resume", sid, "-p", "go on"}
			if code := f.runArchived(st, args...); code != 0 || len(f.calls) != 1 {
				t.Fatalf("code %d calls %d", code, len(f.calls))
			}
			if !reflect.DeepEqual(f.calls[0].Args, args) {
				t.Errorf("not resumed: args %q", f.calls[0].Args)
			}
			if b, _ := os.ReadFile(p); string(b) != body {
				t.Errorf("restored %q", b)
			}
			if s := f.stderr.String(); !strings.HasPrefix(s, "tether: restored session d9f7843f from tether's archive to ") || strings.Count(s, "\n") != 1 {
				t.Errorf("stderr %q", s)
			}
			if ev := f.events(); !reflect.DeepEqual(ev, []string{"archive_restore", "spawn", "end"}) {
				t.Errorf("events %v", ev)
			}
		})
	}
}

func TestResumeWithoutArchivedCopyStartsFresh(t *testing.T) {
	f := newFixture(t)
	st := &archive.Store{Dir: filepath.Join(f.home, "archive")}
	f.runArchived(st, "--resume", sid, "-p", "go on")
	if len(f.calls) != 1 || !reflect.DeepEqual(f.calls[0].Args, []string{"-p", "go on"}) {
		t.Fatalf("calls %+v", f.calls)
	}
	if strings.Contains(f.stderr.String(), "restored") {
		t.Errorf("stderr %q", f.stderr.String())
	}
}

// TestResumeFromCopyWithoutCodec: a binary without the zstd codec
// (tether-hot) meets a compressed copy. Run returns archive.ErrNoCodec
// before it starts, logs or restores anything, so the caller can hand the
// run to tether.
func TestResumeFromCopyWithoutCodec(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	st := &archive.Store{Dir: filepath.Join(f.home, "archive"), Mode: archive.ModeCopy}
	if _, err := st.Archive(archive.Source{Harness: eventlog.ClaudeCode, Root: f.claude, Path: p}); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	saved := archive.SetCodec(nil)
	defer archive.SetCodec(saved)
	_, err := Run(Options{
		Agent: claude.New(f.claude), Bin: "/usr/bin/claude-real", Args: []string{"--resume", sid}, Root: f.root,
		Env: []string{"HOME=" + f.home}, Stderr: &f.stderr, Archive: st,
		Log: eventlog.Open(eventlog.Options{Path: f.logPath}),
		Exec: func(c Child) (int, error) {
			f.calls = append(f.calls, c)
			return 0, nil
		},
	})
	if !errors.Is(err, archive.ErrNoCodec) {
		t.Fatalf("err = %v, want ErrNoCodec", err)
	}
	if len(f.calls) != 0 || f.stderr.Len() != 0 || len(f.events()) != 0 {
		t.Errorf("ran %d, stderr %q, events %v: want nothing", len(f.calls), f.stderr.String(), f.events())
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("restored without a codec")
	}
}
