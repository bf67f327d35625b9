package identity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testkit/testutil"
	"golang.org/x/text/unicode/norm"
)

// realTemp returns a temporary directory with its own symlinks resolved, so
// expectations do not depend on the platform's /tmp being a link.
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResolveSpellingsGiveOneRoot(t *testing.T) {
	base := realTemp(t)
	real := mkdir(t, filepath.Join(base, "src", "project"))
	mkdir(t, filepath.Join(base, "src", "other"))
	if err := os.Symlink(filepath.Join(base, "src"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(base, "proj-link")); err != nil {
		t.Fatal(err)
	}
	spellings := []string{
		real,
		real + "/",
		real + "//",
		filepath.Join(base, "src", "other") + "/../project",
		base + "/src/./project",
		filepath.Join(base, "link", "project"),
		filepath.Join(base, "link", "project") + "/",
		filepath.Join(base, "proj-link"),
		filepath.Join(base, "proj-link") + "/.",
	}
	for _, sp := range spellings {
		r := Resolve(sp)
		if r.Path != real {
			t.Errorf("Resolve(%q).Path = %q, want %q", sp, r.Path, real)
		}
		if r.FellBack {
			t.Errorf("Resolve(%q) fell back: %s", sp, r.Reason)
		}
		if r.Raw != sp {
			t.Errorf("Resolve(%q).Raw = %q", sp, r.Raw)
		}
	}
}

func TestResolveRelative(t *testing.T) {
	base := realTemp(t)
	mkdir(t, filepath.Join(base, "a", "b"))
	t.Chdir(filepath.Join(base, "a"))
	if got := Resolve("b/../b/").Path; got != filepath.Join(base, "a", "b") {
		t.Errorf("relative: got %q", got)
	}
	if got := Resolve(".").Path; got != filepath.Join(base, "a") {
		t.Errorf("dot: got %q", got)
	}
}

func TestResolveNFD(t *testing.T) {
	base := realTemp(t)
	nfcName := "caf\u00e9-Ünïcode"
	nfdName := norm.NFD.String(nfcName)
	if nfdName == nfcName {
		t.Fatal("test name has no NFD form")
	}
	// Linux keeps the bytes it is given: create the directory under its NFD
	// spelling, as macOS tools and some archives do.
	dir := mkdir(t, filepath.Join(base, nfdName))
	want := filepath.Join(base, nfcName)

	r := Resolve(dir)
	if r.Path != want {
		t.Errorf("NFD dir: Path = %q, want NFC %q", r.Path, want)
	}
	if r.Dir != dir {
		t.Errorf("NFD dir: Dir = %q, want the on-disk spelling %q", r.Dir, dir)
	}
	if r.FellBack {
		t.Errorf("NFD dir fell back: %s", r.Reason)
	}
	// The NFC spelling does not exist on this file system; it falls back
	// but still lands on the same root.
	if r2 := Resolve(want + "/"); r2.Path != want {
		t.Errorf("NFC spelling: Path = %q, want %q", r2.Path, want)
	}
}

func TestResolveFallback(t *testing.T) {
	base := realTemp(t)
	missing := filepath.Join(base, "gone", "x", "..", "project") + "/"
	r := Resolve(missing)
	if !r.FellBack || r.Reason != "path does not exist" {
		t.Errorf("missing: FellBack=%v Reason=%q", r.FellBack, r.Reason)
	}
	if want := filepath.Join(base, "gone", "project"); r.Path != want {
		t.Errorf("missing: Path = %q, want %q", r.Path, want)
	}
	// A missing NFD path still comes out NFC.
	nfd := norm.NFD.String(filepath.Join(base, "gone", "é"))
	if got := Resolve(nfd).Path; got != norm.NFC.String(nfd) {
		t.Errorf("missing NFD: Path = %q", got)
	}
}

func TestResolveUnreadableParent(t *testing.T) {
	if os.Geteuid() == 0 {
		// Mode bits do not stop root: run this test again as nobody.
		testutil.RerunAsNobody(t, "TestResolveUnreadableParent")
		return
	}
	base := os.Getenv("TETHER_TEST_BASE")
	if base == "" {
		base = realTemp(t)
	}
	locked := mkdir(t, filepath.Join(base, "locked"))
	inner := mkdir(t, filepath.Join(locked, "inner"))
	if err := os.Chmod(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	r := Resolve(inner + "/")
	if !r.FellBack || r.Reason != "permission denied" {
		t.Errorf("unreadable parent: FellBack=%v Reason=%q", r.FellBack, r.Reason)
	}
	if r.Path != inner {
		t.Errorf("unreadable parent: Path = %q, want %q", r.Path, inner)
	}
}

func TestPinnedUsesEnvVerbatim(t *testing.T) {
	env := map[string]string{EnvRoot: "/home/example/src/project", "PWD": "/elsewhere"}
	r := Pinned(func(k string) string { return env[k] })
	if !r.Pinned || r.Path != "/home/example/src/project" {
		t.Errorf("Pinned = %+v, want the env value verbatim", r)
	}
}

// Issue 13 item 9: only an absolute, clean path without NUL is taken from
// the environment; anything else is recomputed, saying why.
func TestPinnedRejectsUnsafeEnv(t *testing.T) {
	base := realTemp(t)
	t.Chdir(base)
	for _, v := range []string{"relative/dir", ".", "/home/example/src/project/", "/home/example/../etc", "/home/example//x", "/home/ex\x00ample"} {
		env := map[string]string{EnvRoot: v, "PWD": base}
		r := Pinned(func(k string) string { return env[k] })
		if r.Pinned || r.Path != base || r.IgnoredPin == "" {
			t.Errorf("%q: Pinned = %+v, want %q recomputed with a reason", v, r, base)
		}
	}
}

func TestPinnedFromWorkingDirectory(t *testing.T) {
	base := realTemp(t)
	real := mkdir(t, filepath.Join(base, "real"))
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(link)
	env := map[string]string{"PWD": link}
	r := Pinned(func(k string) string { return env[k] })
	if r.Pinned || r.Path != real || r.Raw != link {
		t.Errorf("Pinned = %+v, want Path %q from Raw %q", r, real, link)
	}
	// A stale PWD (the shell's idea of the directory is out of date) is
	// ignored in favour of the real working directory.
	env["PWD"] = filepath.Join(base, "nowhere")
	if r := Pinned(func(k string) string { return env[k] }); r.Path != real {
		t.Errorf("stale PWD: Path = %q", r.Path)
	}
}

func TestEqual(t *testing.T) {
	base := realTemp(t)
	mkdir(t, filepath.Join(base, "p"))
	if !Equal(base+"/p/", base+"/x/../p") {
		t.Error("Equal: same directory reported different")
	}
	if Equal(base+"/p", base) {
		t.Error("Equal: different directories reported same")
	}
}

func TestSameSession(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"session_01HXYZabcdef", "cse_01HXYZabcdef", true},
		{"session_01HXYZabcdef", "01HXYZabcdef", true},
		{"d9f7843f-07d6-4b50-9048-40676f77f965", "d9f7843f-07d6-4b50-9048-40676f77f965", true},
		{"session_abc", "cse_abc", false}, // body too short to stand alone
		{"x_abc", "x_abc", true},          // exact match always counts
		{"session_01HXYZabcdef", "session_01HXYZabcdeg", false},
		{"", "", false},
		{"abcdefgh_", "x_", false},
	}
	for _, c := range cases {
		if got := SameSession(c.a, c.b); got != c.want {
			t.Errorf("SameSession(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := SameSession(c.b, c.a); got != c.want {
			t.Errorf("SameSession(%q, %q) = %v, want %v (symmetry)", c.b, c.a, got, c.want)
		}
	}
}

func TestFallbackReasonNamesOp(t *testing.T) {
	r := Resolve(strings.Repeat("/x", 1) + "\x00bad")
	if !r.FellBack || r.Reason == "" {
		t.Errorf("NUL path: %+v", r)
	}
}

func TestShortID(t *testing.T) {
	for in, want := range map[string]string{
		"d9f7843f-07d6-4b50-9048-40676f77f965": "d9f7843f",
		"session_01HXYZabcdef":                 "01HXYZab",
		"abc":                                  "abc",
		"":                                     "",
	} {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}
