package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude"
)

// The on-disk names are what existing installs have: they must not move.
func TestPathsAreTheExistingOnes(t *testing.T) {
	const dir = "/home/example/.local/state/tether"
	name, _ := claude.ProjectDirName("/home/example/src/proj")
	for got, want := range map[string]string{
		SessionPath(dir, "433bf38a-107f"):       dir + "/sessions/433bf38a-107f.json",
		SessionPath(dir, "../../etc/passwd"):    dir + "/sessions/_.._etc_passwd.json",
		SessionPath(dir, ""):                    dir + "/sessions/_.json",
		RootPath(dir, "/home/example/src/proj"): dir + "/roots/793eade7a2e637d979ed147d.json", // sha256(root)[:12] in hex
		StalePath(dir, "433bf38a"):              dir + "/stale/433bf38a.json",
		StalePath(dir, "../x"):                  dir + "/stale/x.json",
		ResetPath(dir, name):                    dir + "/reset/" + name + ".json",
		BindingsPath(dir):                       dir + "/bindings.json",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	if name != "-home-example-src-proj" {
		t.Errorf("project name %q", name)
	}
}

func checkModes(t *testing.T, base, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != FileMode {
		t.Errorf("%s: mode %v, want 0600", path, st.Mode().Perm())
	}
	for d := filepath.Dir(path); strings.HasPrefix(d, base+"/") || d == base; d = filepath.Dir(d) {
		if st, _ := os.Stat(d); st.Mode().Perm() != DirMode {
			t.Errorf("%s: mode %v, want 0700", d, st.Mode().Perm())
		}
		if d == base {
			break
		}
	}
	// An atomic write leaves no temporary file behind.
	ents, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestSessionSaveLoadAndIndex(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := Session{SessionID: "s1", Harness: "claude-code", IdentityRoot: "/home/example/src/proj", Tokens: 500, Window: 1000,
		Percent: Percent(500, 1000), UsageKnown: true, Updated: now}
	if err := Save(base, s); err != nil {
		t.Fatal(err)
	}
	checkModes(t, base, SessionPath(base, "s1"))
	checkModes(t, base, RootPath(base, s.IdentityRoot))
	got, err := LoadSession(base, "s1")
	if err != nil || got.Tokens != 500 || got.Percent != 50 || !got.Updated.Equal(now) {
		t.Errorf("LoadSession: %+v %v", got, err)
	}
	if got, err := LatestForRoot(base, s.IdentityRoot); err != nil || got.SessionID != "s1" {
		t.Errorf("LatestForRoot: %+v %v", got, err)
	}
	if _, err := LatestForRoot(base, "/elsewhere"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("other root: %v", err)
	}
	// A file from elsewhere under the root's name is not the root's.
	os.WriteFile(RootPath(base, "/other"), []byte(`{"session_id":"x","identity_root":"/home/example/src/proj"}`), 0o600)
	if got, err := LatestForRoot(base, "/other"); !errors.Is(err, fs.ErrNotExist) || got != (Session{}) {
		t.Errorf("foreign index accepted: %+v %v", got, err)
	}
	// LatestForRoot returns a zero session on every error.
	os.WriteFile(RootPath(base, "/corrupt"), []byte(`{"session_id":"x","tokens":`), 0o600)
	for _, root := range []string{"/other", "/corrupt", "/missing"} {
		if got, err := LatestForRoot(base, root); err == nil || got != (Session{}) {
			t.Errorf("LatestForRoot %s: %+v %v", root, got, err)
		}
	}
	os.WriteFile(SessionPath(base, "bad"), []byte("{not json"), 0o600)
	if _, err := LoadSession(base, "bad"); err == nil || !strings.Contains(err.Error(), SessionPath(base, "bad")) {
		t.Errorf("corrupt state: %v", err)
	}
	// A file a user made more private stays so; the write replaces it.
	os.Chmod(SessionPath(base, "s1"), 0o400)
	s.Tokens = 700
	if err := Save(base, s); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadSession(base, "s1"); got.Tokens != 700 {
		t.Errorf("not replaced: %+v", got)
	}
	if st, _ := os.Stat(SessionPath(base, "s1")); st.Mode().Perm() != 0o400 {
		t.Errorf("mode %v after the replacement, want the user's 0400", st.Mode().Perm())
	}
}

// The root index is a link to the file of the root's latest session: a
// session's later saves leave it alone, another session's save in the
// root repoints it, and an older tether's copy is replaced by the link.
func TestRootIndexLinksTheLatestSession(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state")
	root := "/home/example/src/proj"
	idx := RootPath(base, root)
	os.MkdirAll(filepath.Dir(idx), DirMode)
	os.WriteFile(idx, []byte(`{"session_id":"old","identity_root":"/home/example/src/proj"}`+"\n"), FileMode)
	save := func(id string, tokens int64) {
		t.Helper()
		if err := Save(base, Session{SessionID: id, IdentityRoot: root, Tokens: tokens}); err != nil {
			t.Fatal(err)
		}
	}
	latest := func() Session {
		t.Helper()
		s, err := LatestForRoot(base, root)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	save("a", 1)
	link, err := os.Lstat(idx)
	if err != nil || link.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("root index is not a link: %v %v", link.Mode(), err)
	}
	if target, _ := os.Readlink(idx); target != "../sessions/a.json" {
		t.Errorf("link target %q", target)
	}
	save("a", 2)
	if again, _ := os.Lstat(idx); !os.SameFile(link, again) {
		t.Error("the link was rewritten for the same session")
	}
	if s := latest(); s.SessionID != "a" || s.Tokens != 2 {
		t.Errorf("latest %+v, want a with 2 tokens", s)
	}
	save("b", 3)
	if s := latest(); s.SessionID != "b" || s.Tokens != 3 {
		t.Errorf("latest %+v, want b", s)
	}
	checkModes(t, base, idx)
	checkModes(t, base, SessionPath(base, "a"))
}

// Existing users' files, as an older tether wrote them, are still read.
func TestReadsExistingSessionFile(t *testing.T) {
	base := t.TempDir()
	p := filepath.Join(base, "sessions", "abc.json")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte(`{"session_id":"abc","harness":"codex","identity_root":"/r","tokens":153,"window":258400,"percent":0,"usage_known":true,"last_event":"Stop","updated":"2026-11-30T12:00:00Z","future_field":1}`+"\n"), 0o600)
	if s, err := LoadSession(base, "abc"); err != nil || s.Tokens != 153 || s.Window != 258400 || s.LastEvent != "Stop" {
		t.Errorf("%+v %v", s, err)
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		tokens, window int64
		want           float64
	}{{0, 0, 0}, {1, 0, 0}, {20000, 1_000_000, 2}, {1136, 1_000_000, 0.1}, {199_999, 200_000, 99.9},
		// A small share is 0.1%, never 0% (issue 23: a Codex session read 0%).
		{153, 258_400, 0.1}, {1, 1_000_000, 0.1}, {200_000, 200_000, 100}} {
		if got := Percent(c.tokens, c.window); got != c.want {
			t.Errorf("Percent(%d, %d) = %v, want %v", c.tokens, c.window, got, c.want)
		}
	}
}

func TestStaleMarker(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state")
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(tr, []byte("{}\n"), 0o600)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if StaleReason(base, "s", tr) != "" {
		t.Error("stale without a marker")
	}
	if err := MarkStale(base, "s", tr, "prompt too long", now); err != nil {
		t.Fatal(err)
	}
	checkModes(t, base, StalePath(base, "s"))
	if r := StaleReason(base, "s", tr); !strings.HasPrefix(r, "prompt too long, as on ") {
		t.Errorf("reason %q", r)
	}
	// Any change to the transcript clears the verdict, and the marker.
	os.WriteFile(tr, []byte("{}\n{}\n"), 0o600)
	if r := StaleReason(base, "s", tr); r != "" {
		t.Errorf("still stale after a change: %q", r)
	}
	if _, err := os.Stat(StalePath(base, "s")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("marker kept: %v", err)
	}
	if err := MarkStale(base, "s", filepath.Join(base, "missing"), "x", now); err == nil {
		t.Error("marked a missing transcript")
	}
}

func TestResetMarkerActsOnce(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state")
	root := "/home/example/src/proj"
	name, _ := claude.ProjectDirName(root)
	if ok, err := TakeReset(base, name); ok || err != nil {
		t.Errorf("reset without a marker: %v %v", ok, err)
	}
	p, err := MarkReset(base, name, root, "sid", time.Now())
	if err != nil || p != ResetPath(base, name) {
		t.Fatalf("%s %v", p, err)
	}
	checkModes(t, base, p)
	if data, _ := os.ReadFile(p); !strings.Contains(string(data), `"sessionId":"sid"`) || !strings.Contains(string(data), `"root":"/home/example/src/proj"`) {
		t.Errorf("marker: %s", data)
	}
	if ok, err := TakeReset(base, name); !ok || err != nil {
		t.Errorf("first take: %v %v", ok, err)
	}
	if ok, _ := TakeReset(base, name); ok {
		t.Error("reset acted twice")
	}
}

func TestBindings(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state")
	p := BindingsPath(base)
	b, err := LoadBindings(p)
	if err != nil || b.Version != 1 || len(b.Sessions) != 0 {
		t.Fatalf("missing file: %+v %v", b, err)
	}
	b.Sessions["claude-code:s1"] = Binding{Tmux: "proj", Dir: "/home/example/src/proj"}
	if err := b.Save(p); err != nil {
		t.Fatal(err)
	}
	checkModes(t, base, p)
	if got, err := LoadBindings(p); err != nil || got.Sessions["claude-code:s1"].Tmux != "proj" {
		t.Errorf("%+v %v", got, err)
	}
	// A file that does not parse is an error naming it and stays as it is.
	os.WriteFile(p, []byte("not json"), 0o600)
	if _, err := LoadBindings(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("bad file: %v", err)
	}
}

// Readers never see a torn state file while writers replace it.
func TestConcurrentSavesAreAtomic(t *testing.T) {
	base := t.TempDir()
	big := strings.Repeat("x", 64<<10) // several write(2)s if not atomic
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			Save(base, Session{SessionID: "s", IdentityRoot: "/r", Cwd: big, Tokens: int64(i)})
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		if _, err := LoadSession(base, "s"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("torn read: %v", err)
		}
		if _, err := LatestForRoot(base, "/r"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("torn index: %v", err)
		}
	}
}
