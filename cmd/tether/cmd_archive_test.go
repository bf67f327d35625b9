package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/archive"
)

func (ta *testApp) claudeFile() string {
	return filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-proj", claudeNew+".jsonl")
}

func (ta *testApp) codexFile() string {
	return filepath.Join(ta.env["CODEX_HOME"], "sessions", "2026", "11", "30", "rollout-2026-11-30T11-02-34-"+codexID+".jsonl")
}

func (ta *testApp) archiveDir() string {
	return filepath.Join(ta.home, ".local", "share", "tether", "archive")
}

func (ta *testApp) config(t *testing.T, body string) {
	t.Helper()
	put(t, filepath.Join(ta.env["XDG_CONFIG_HOME"], "tether", "config.toml"), []byte(body))
}

func listStates(t *testing.T, ta *testApp, args ...string) map[string]map[string]any {
	t.Helper()
	ta.out.Reset()
	if code := ta.run(append([]string{"sessions", "--json"}, args...)...); code != 0 {
		t.Fatalf("sessions: exit %d %s", code, ta.err)
	}
	m := validate(t, "list", ta.out.Bytes())
	out := map[string]map[string]any{}
	for _, s := range m["sessions"].([]any) {
		s := s.(map[string]any)
		key := s["harness"].(string) + ":" + s["id"].(string)
		if _, dup := out[key]; dup {
			t.Fatalf("%s listed twice", key)
		}
		out[key] = s
	}
	return out
}

func TestArchiveListResumeRestore(t *testing.T) {
	for _, mode := range []string{"link", "copy"} {
		t.Run(mode, func(t *testing.T) {
			ta := newTestApp(t)
			ta.config(t, fmt.Sprintf("[archive]\nmode = %q\n", mode))
			dir := filepath.Join(ta.home, "proj")
			os.MkdirAll(dir, 0o755)
			withSessions(t, ta, dir)
			want, _ := os.ReadFile(ta.claudeFile())
			wantCodex, _ := os.ReadFile(ta.codexFile())
			if got := listStates(t, ta); len(got) != 3 || got["claude-code:"+claudeNew]["state"] != "resumable" {
				t.Fatalf("live listing: %v", got)
			}
			// Claude Code's cleanup: a plain unlink.
			os.Remove(ta.claudeFile())
			os.Remove(ta.codexFile())
			got := listStates(t, ta)
			for _, key := range []string{"claude-code:" + claudeNew, "codex:" + codexID} {
				if got[key]["state"] != "archived" || got[key]["archive"] == nil {
					t.Fatalf("%s: %v", key, got[key])
				}
			}
			if only := listStates(t, ta, "--state", "archived"); len(only) != 2 {
				t.Fatalf("--state archived: %d", len(only))
			}
			var gotArgv []string
			orig := execResume
			execResume = func(d string, argv, env []string) error { gotArgv = argv; return nil }
			defer func() { execResume = orig }()
			ta.err.Reset()
			if code := ta.run("sessions", "resume", "d9f7"); code != 0 || len(gotArgv) != 5 || gotArgv[1] != "run" {
				t.Fatalf("resume: exit %d argv %v err %s", code, gotArgv, ta.err)
			}
			if !strings.Contains(ta.err.String(), "restored claude-code d9f7843f from tether's archive") || strings.Count(ta.err.String(), "\n") != 1 {
				t.Errorf("stderr %q", ta.err)
			}
			if b, _ := os.ReadFile(ta.claudeFile()); string(b) != string(want) {
				t.Fatal("restored transcript differs")
			}
			// --print restores too, so the printed command works.
			ta.out.Reset()
			if code := ta.run("sessions", "resume", "--print", "codex:01a2"); code != 0 || !strings.Contains(ta.out.String(), "codex resume") {
				t.Fatalf("resume --print codex: exit %d %s %s", code, ta.out, ta.err)
			}
			if b, _ := os.ReadFile(ta.codexFile()); string(b) != string(wantCodex) {
				t.Fatal("restored rollout differs")
			}
			if got := listStates(t, ta); got["claude-code:"+claudeNew]["state"] != "resumable" || got["codex:"+codexID]["state"] != "resumable" {
				t.Fatalf("after restore: %v %v", got["claude-code:"+claudeNew]["state"], got["codex:"+codexID]["state"])
			}
			// Restoring a session that is live is refused.
			if code := ta.run("archive", "restore", "d9f7"); code != 4 {
				t.Errorf("restore of a live session: exit %d", code)
			}
		})
	}
}

func TestArchiveRestoreNeverOverwrites(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.run("sessions")
	os.Remove(ta.claudeFile())
	ta.run("sessions") // now archived; a file appears at the target meanwhile
	st := &archive.Store{Dir: ta.archiveDir()}
	stored := filepath.Join(st.HarnessDir("claude-code"), "projects", "-home-example-src-proj", claudeNew+".jsonl")
	if _, err := os.Stat(stored); err != nil {
		t.Fatal(err)
	}
	ta.err.Reset()
	c, _ := ta.catalogFor("")
	s, err := resolveSession(t.Context(), c, "d9f7")
	if err != nil {
		t.Fatal(err)
	}
	put(t, ta.claudeFile(), []byte("someone else's\n"))
	if err := ta.restoreArchived(s); err == nil || !strings.Contains(err.Error(), "never restores over an existing file") {
		t.Fatalf("err = %v", err)
	}
	if code := ta.Run(t.Context(), []string{"tether", "archive", "restore", "d9f7"}); code != 4 {
		t.Errorf("exit %d", code)
	}
	if b, _ := os.ReadFile(ta.claudeFile()); string(b) != "someone else's\n" {
		t.Fatalf("the file in the way was changed: %q", b)
	}
}

func TestArchiveStatusSyncPrune(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.env["TETHER_ARCHIVE_SCAN"] = "0" // listings do not archive: sync does
	ta.out.Reset()
	if code := ta.run("archive", "sync"); code != 0 || !strings.Contains(ta.out.String(), "archived 3 sessions: 3 new links") {
		t.Fatalf("sync: exit %d %q %s", code, ta.out, ta.err)
	}
	os.Remove(ta.claudeFile())
	ta.out.Reset()
	if code := ta.run("archive", "status", "--json"); code != 0 {
		t.Fatalf("status: %d %s", code, ta.err)
	}
	var st ArchiveStatus
	if err := json.Unmarshal(ta.out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 3 || st.ArchivedOnly != 1 || st.Linked != 3 || st.DiskBytes == 0 || !st.Enabled || st.Mode != "link" {
		t.Fatalf("status %+v", st)
	}
	ix, err := (&archive.Store{Dir: ta.archiveDir()}).LoadIndex()
	if err != nil || len(ix.Entries) != 3 {
		t.Fatalf("index %+v %v", ix, err)
	}
	// Prune: only what exists nowhere else, and only when old enough.
	stored := filepath.Join(ta.archiveDir(), "claude-code", "projects", "-home-example-src-proj", claudeNew+".jsonl")
	ta.out.Reset()
	ta.run("archive", "prune", "--older-than", "1d")
	if _, err := os.Stat(stored); err != nil {
		t.Fatal("pruned a recent session")
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(stored, old, old)
	ta.out.Reset()
	if code := ta.run("archive", "prune", "--older-than", "1d", "--dry-run"); code != 0 || !strings.Contains(ta.out.String(), "would remove "+stored) {
		t.Fatalf("dry run: %d %q", code, ta.out)
	}
	if _, err := os.Stat(stored); err != nil {
		t.Fatal("--dry-run deleted")
	}
	ta.out.Reset()
	if code := ta.run("archive", "prune", "--older-than", "1d"); code != 0 || strings.Count(ta.out.String(), "removed ") != 1 {
		t.Fatalf("prune: %d %q", code, ta.out)
	}
	if _, err := os.Stat(stored); err == nil {
		t.Fatal("not pruned")
	}
	if code := ta.run("archive", "prune"); code != 2 {
		t.Errorf("prune without --older-than: exit %d", code)
	}
}

func TestArchiveDisabledKeepsNothingNew(t *testing.T) {
	ta := newTestApp(t)
	ta.config(t, "[archive]\nenabled = false\n")
	withSessions(t, ta, "")
	ta.run("sessions")
	if _, err := os.Stat(filepath.Join(ta.archiveDir(), "claude-code")); err == nil {
		t.Fatal("a disabled archive archived")
	}
	if code := ta.run("archive", "sync"); code != 4 {
		t.Errorf("sync while disabled: exit %d", code)
	}
}

func TestHookArchivesAtSessionEnd(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.env["CLAUDE_CODE_SESSION_ID"] = claudeNew
	payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/home/example/src/proj","hook_event_name":"SessionEnd","reason":"other"}`,
		claudeNew, ta.claudeFile())
	ta.IO.In = strings.NewReader(payload)
	if code := ta.run("hook", "SessionEnd"); code != 0 || ta.out.Len() != 0 {
		t.Fatalf("hook: exit %d out %q", code, ta.out)
	}
	stored := filepath.Join(ta.archiveDir(), "claude-code", "projects", "-home-example-src-proj", claudeNew+".jsonl")
	a, err1 := os.Stat(stored)
	b, err2 := os.Stat(ta.claudeFile())
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		t.Fatalf("SessionEnd did not link the transcript: %v %v", err1, err2)
	}
	// In copy mode the hook leaves the work to listings and sync.
	os.Remove(stored)
	ta2 := newTestApp(t)
	ta2.config(t, "[archive]\nmode = \"copy\"\n")
	withSessions(t, ta2, "")
	ta2.IO.In = strings.NewReader(strings.ReplaceAll(payload, ta.home, ta2.home))
	ta2.run("hook", "SessionEnd")
	if _, err := os.Stat(filepath.Join(ta2.archiveDir(), "claude-code")); err == nil {
		t.Fatal("the hook compressed a transcript")
	}
}

func TestCacheClearRemovesArchiveCache(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.run("sessions")
	os.Remove(ta.claudeFile())
	ta.run("sessions")
	cache := filepath.Join(ta.env["XDG_CACHE_HOME"], "tether", "catalog-archive-claude-code.gob")
	if fi, err := os.Stat(cache); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("archive cache %v %v", fi, err)
	}
	ta.run("sessions", "cache", "clear")
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("archive cache not cleared: %v", err)
	}
}

// ageDirs sets the mtime of every directory under roots an hour back, so
// the next listing may record them as current.
func ageDirs(t *testing.T, roots ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
			return nil
		})
	}
}

// Listings skip directories recorded as current; an append to a recently
// written transcript (which leaves its directory's mtime alone) is still
// in the archive after the next listing: through the link, or compressed
// in copy mode.
func TestArchiveListingSkipKeepsArchiveCurrent(t *testing.T) {
	for _, mode := range []string{"link", "copy"} {
		t.Run(mode, func(t *testing.T) {
			ta := newTestApp(t)
			ta.config(t, fmt.Sprintf("[archive]\nmode = %q\n", mode))
			withSessions(t, ta, "")
			ta.run("sessions")
			ageDirs(t, ta.env["CLAUDE_CONFIG_DIR"], ta.env["CODEX_HOME"], ta.archiveDir())
			ta.run("sessions") // records every directory as current
			f, err := os.OpenFile(ta.claudeFile(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"type":"summary","summary":"appended later","leafUuid":"x"}` + "\n")
			f.Close()
			if code := ta.run("sessions"); code != 0 {
				t.Fatalf("sessions: exit %d %s", code, ta.err)
			}
			stored := filepath.Join(ta.archiveDir(), "claude-code", "projects", "-home-example-src-proj", claudeNew+".jsonl")
			var got bytes.Buffer
			if archive.IsCompressed(stored) {
				if _, err := archive.Decompress(&got, stored); err != nil {
					t.Fatal(err)
				}
			} else if b, err := os.ReadFile(stored); err == nil {
				got.Write(b)
			}
			if want, _ := os.ReadFile(ta.claudeFile()); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("archived copy is %d bytes, live transcript %d", got.Len(), len(want))
			}
		})
	}
}

// TestArchiveSyncRefusesPlantedSymlink: a directory inside the archive
// replaced by a symlink to elsewhere (issue 23, item 14): sync writes
// nothing through it, says so in one line naming it, and status counts
// what the archive really holds.
func TestArchiveSyncRefusesPlantedSymlink(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.env["TETHER_ARCHIVE_SCAN"] = "0"
	outside := t.TempDir()
	planted := filepath.Join(ta.archiveDir(), "claude-code", "projects", "-home-example-src-proj")
	os.MkdirAll(filepath.Dir(planted), 0o700)
	if err := os.Symlink(outside, planted); err != nil {
		t.Fatal(err)
	}
	ta.out.Reset()
	ta.err.Reset()
	code := ta.run("archive", "sync")
	errOut := ta.err.String()
	if code == 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, planted+" is a symlink inside the archive") {
		t.Fatalf("sync: exit %d out %q err %q", code, ta.out, errOut)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("sync wrote through the symlink: %v", ents)
	}
	ta.out.Reset()
	if code := ta.run("archive", "status", "--json"); code != 0 {
		t.Fatalf("status: %d %s", code, ta.err)
	}
	var st ArchiveStatus
	if err := json.Unmarshal(ta.out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 1 || st.Linked != 1 {
		t.Fatalf("status %+v, want the Codex thread only", st)
	}
	// A listing (which archives too) writes nothing there either.
	delete(ta.env, "TETHER_ARCHIVE_SCAN")
	listStates(t, ta)
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("a listing wrote through the symlink: %v", ents)
	}
}

func archiveStatus(t *testing.T, ta *testApp) ArchiveStatus {
	t.Helper()
	ta.out.Reset()
	if code := ta.run("archive", "status", "--json"); code != 0 {
		t.Fatalf("status: %d %s", code, ta.err)
	}
	var st ArchiveStatus
	if err := json.Unmarshal(ta.out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestArchiveSyncUnlinksTranscriptChangedInPlace: link mode, and a
// transcript truncated in place (issue 23, item 18). Sync says what that
// cost, keeps the session as a copy from then on, so that the next
// truncation keeps the earlier copy; status counts both; a restore gives
// the archived copy back.
func TestArchiveSyncUnlinksTranscriptChangedInPlace(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	ta.env["TETHER_ARCHIVE_SCAN"] = "0"
	if code := ta.run("archive", "sync"); code != 0 {
		t.Fatalf("sync: %d %s", code, ta.err)
	}
	full, _ := os.ReadFile(ta.claudeFile())
	half := bytes.LastIndexByte(full[:len(full)/2], '\n') + 1
	if err := os.Truncate(ta.claudeFile(), int64(half)); err != nil {
		t.Fatal(err)
	}
	ta.err.Reset()
	ta.out.Reset()
	if code := ta.run("archive", "sync"); code != 0 {
		t.Fatalf("sync after the truncation: %d %s", code, ta.err)
	}
	if !strings.Contains(ta.err.String(), "warning: "+ta.claudeFile()+" was truncated or rewritten in place") ||
		!strings.Contains(ta.out.String(), "1 unlinked") {
		t.Fatalf("sync out %q err %q", ta.out, ta.err)
	}
	stored := filepath.Join(ta.archiveDir(), "claude-code", "projects", "-home-example-src-proj", claudeNew+".jsonl")
	if !archive.IsCompressed(stored) {
		t.Fatal("the link was not replaced by a copy")
	}
	if st := archiveStatus(t, ta); st.Sessions != 3 || st.Copied != 1 || st.Linked != 2 || st.Kept != 0 {
		t.Fatalf("status %+v", st)
	}
	// The next in-place truncation keeps what the copy held.
	// (Still a session: up to its first prompt.)
	user := bytes.Index(full, []byte(`"type": "user"`))
	if user < 0 || user > half {
		t.Fatal("sample: no prompt in its first half")
	}
	if err := os.Truncate(ta.claudeFile(), int64(user+bytes.IndexByte(full[user:], '\n')+1)); err != nil {
		t.Fatal(err)
	}
	ta.err.Reset()
	if code := ta.run("archive", "sync"); code != 0 || !strings.Contains(ta.err.String(), "the archive's earlier copy is kept at") {
		t.Fatalf("second sync: %d %q %q", code, ta.err, ta.out)
	}
	st := archiveStatus(t, ta)
	if st.Kept != 1 || st.Sessions != 3 {
		t.Fatalf("status %+v", st)
	}
	var kept string
	filepath.WalkDir(st.KeptDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			kept = p
		}
		return nil
	})
	var got bytes.Buffer
	if _, err := archive.Decompress(&got, kept); err != nil || !bytes.Equal(got.Bytes(), full[:half]) {
		t.Fatalf("kept copy (%v): %d bytes, want %d", err, got.Len(), half)
	}
}
