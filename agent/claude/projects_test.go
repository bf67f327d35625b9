package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/tether-dev/tether/identity"
)

func TestProjectDirName(t *testing.T) {
	cases := []struct{ path, want string }{
		// The example in ../shared/notes/formats.md.
		{"/home/u/odd dir/My.Proj_v2", "-home-u-odd-dir-My-Proj-v2"},
		// What the real CLIs wrote for the shared samples.
		{"/home/example/src/proj", "-home-example-src-proj"},
		// No collapsing of runs, trailing slash kept as a dash.
		{"/a//b/", "-a--b-"},
		// Non-ASCII: one dash per UTF-16 code unit; an astral character is a
		// surrogate pair, so two dashes.
		{"/home/example/café", "-home-example-caf-"},
		{"/home/example/プロジェクト", "-home-example-------"},
		{"/home/example/x😀y", "-home-example-x--y"},
		{"/home/example/e\u0301", "-home-example-e-"}, // NFD: e + combining accent = two code units
	}
	for _, c := range cases {
		got, long := ProjectDirName(c.path)
		if got != c.want || long {
			t.Errorf("ProjectDirName(%q) = %q, %v; want %q, false", c.path, got, long, c.want)
		}
		if n := len(utf16.Encode([]rune(c.path))); len(got) != n {
			t.Errorf("ProjectDirName(%q) has %d bytes, want one per UTF-16 unit (%d)", c.path, len(got), n)
		}
	}
}

// TestLongNameHash pins the hash Claude Code 2.1.332 appended to the long
// project directories the e2e suite observed: base 36 of the 31-multiplier
// string hash.
func TestLongNameHash(t *testing.T) {
	for s, want := range map[string]string{"": "0", "a": "2p", "ab": "2e9"} {
		if got := pathHash36(s); got != want {
			t.Errorf("pathHash36(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestProjectDirNameLong(t *testing.T) {
	path := "/home/example/" + strings.Repeat("deep/", 60) + "project"
	hashed, long := ProjectDirName(path)
	if !long || len(hashed) <= 201 || hashed[200] != '-' {
		t.Fatalf("long path: %q, long %v", hashed, long)
	}
	name := hashed[:200]
	if !strings.HasPrefix(name, "-home-example-deep-deep-") {
		t.Errorf("long name prefix: %q", name[:30])
	}
	// The hash differs between builds: any suffix matches, as does the
	// whole uncut name (Claude Code 2.0); the bare prefix and other
	// prefixes do not.
	full := strings.NewReplacer("/", "-").Replace(path)
	for dir, want := range map[string]bool{
		hashed:                              true,
		full:                                true,
		full[:230]:                          false,
		name + "-1x2y3z":                    true,
		name + "-abc":                       true,
		name:                                false,
		name + "-":                          false,
		name[:199] + "X-abc":                false,
		"-home-example-deep-other" + "-abc": false,
		strings.Replace(name, "deep", "DEEP", 1) + "-1": false,
	} {
		if got := MatchesProjectDir(dir, path); got != want {
			t.Errorf("MatchesProjectDir(%q…) = %v, want %v", dir[:min(len(dir), 40)], got, want)
		}
	}
	if !MatchesProjectDir(hashed, path) {
		t.Error("ProjectDirName's own long name does not match")
	}
	// Exactly 200 characters is not long.
	p200 := "/" + strings.Repeat("a", 199)
	if n, long := ProjectDirName(p200); long || len(n) != 200 || !MatchesProjectDir(n, p200) {
		t.Errorf("200 chars: len %d long %v", len(n), long)
	}
	if _, long := ProjectDirName(p200 + "b"); !long {
		t.Error("201 chars: want long")
	}
}

// writeSession writes a minimal transcript recording cwd.
func writeSession(t *testing.T, projects, dirName, id, cwd string) {
	t.Helper()
	d := mkdir(t, filepath.Join(projects, dirName))
	body := `{"type":"queue-operation","operation":"dequeue","sessionId":"` + id + `"}` + "\n"
	if cwd != "" {
		body += fmt.Sprintf(`{"parentUuid":null,"type":"user","cwd":%q,"sessionId":%q,"uuid":"u1","message":{"role":"user","content":"hi"}}`+"\n", cwd, id)
	}
	if err := os.WriteFile(filepath.Join(d, id+".jsonl"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFindProjectDirs(t *testing.T) {
	base := realTemp(t)
	projects := filepath.Join(base, "claude", "projects")
	real := mkdir(t, filepath.Join(base, "src", "my.proj"))
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	exact, _ := ProjectDirName(real)
	linkName, _ := ProjectDirName(link)
	slashName, _ := ProjectDirName(real + "/")
	collide := filepath.Join(base, "src", "my_proj") // same encoding as my.proj
	mkdir(t, collide)

	writeSession(t, projects, exact, "s-exact-1", real)
	writeSession(t, projects, exact, "s-exact-empty", "")
	writeSession(t, projects, exact, "s-collide", collide) // lossy encoding: not ours
	writeSession(t, projects, linkName, "s-link", link)
	writeSession(t, projects, slashName, "s-slash", real+"/")
	writeSession(t, projects, "-renamed-by-old-cli", "s-old", real+"/./")
	writeSession(t, projects, "-unrelated", "s-other", filepath.Join(base, "src"))
	// 2.0.x subagent transcripts are not sessions.
	writeSession(t, projects, linkName, "agent-1234", link)

	dirs, err := FindProjectDirs(projects, identity.Resolve(link))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	var order []string
	for _, d := range dirs {
		got[d.Name+" "+d.Match] = d.Sessions
		order = append(order, d.Match)
	}
	want := map[string][]string{
		exact + " exact":                   {"s-exact-1", "s-exact-empty"},
		linkName + " spelling":             {"s-link"},
		slashName + " recorded-cwd":        {"s-slash"},
		"-renamed-by-old-cli recorded-cwd": {"s-old"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FindProjectDirs:\n got %v\nwant %v", got, want)
	}
	if order[0] != MatchExact {
		t.Errorf("exact directory not first: %v", order)
	}
}

func TestFindProjectDirsMissing(t *testing.T) {
	base := realTemp(t)
	dirs, err := FindProjectDirs(filepath.Join(base, "none"), identity.Resolve(base))
	if err != nil {
		t.Fatal(err)
	}
	name, _ := ProjectDirName(base)
	if len(dirs) != 1 || dirs[0].Name != name || dirs[0].Match != MatchExact || len(dirs[0].Sessions) != 0 {
		t.Errorf("missing projects dir: %+v", dirs)
	}
}

func TestRecordedCwd(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"empty":     "",
		"garbage":   "\x00\x01not json\n{\"cwd\":\n",
		"2.1":       `{"type":"queue-operation"}` + "\n" + `{"type":"user","cwd":"/home/example/src/proj"}` + "\n",
		"non-str":   `{"cwd":42}` + "\n" + `{"cwd":"/x"}` + "\n",
		"truncated": `{"type":"user","cwd":"/home/ex`,
	}
	want := map[string]string{"empty": "", "garbage": "", "2.1": "/home/example/src/proj", "non-str": "/x", "truncated": ""}
	for name, body := range cases {
		p := filepath.Join(dir, name+".jsonl")
		os.WriteFile(p, []byte(body), 0o600)
		if got := RecordedCwd(p); got != want[name] {
			t.Errorf("%s: RecordedCwd = %q, want %q", name, got, want[name])
		}
	}
	if got := RecordedCwd(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing file: %q", got)
	}
}

func TestRecordedCwdReadsOnlyTheHead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.jsonl")
	pad := `{"type":"file-history-snapshot","x":"` + strings.Repeat("a", 80<<10) + `"}` + "\n"
	os.WriteFile(p, []byte(pad+`{"cwd":"/late"}`+"\n"), 0o600)
	if got := RecordedCwd(p); got != "" {
		t.Errorf("cwd beyond the head limit was read: %q", got)
	}
}

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
