package archive

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type fixture struct {
	root, live string
	store      *Store
	src        Source
}

func newFixture(t *testing.T, mode string) *fixture {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "claude")
	live := filepath.Join(root, "projects", "-home-example-p", "0b6e1a2c-1111-4222-8333-444455556666.jsonl")
	if err := os.MkdirAll(filepath.Dir(live), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, live, "{\"a\":1}\n")
	st := &Store{Dir: filepath.Join(base, "archive"), Mode: mode}
	return &fixture{root: root, live: live, store: st,
		src: Source{Harness: "claude-code", ID: "0b6e1a2c", Root: root, Path: live}}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func (fx *fixture) archive(t *testing.T, want string) Result {
	t.Helper()
	res, err := fx.store.Archive(fx.src)
	if err != nil {
		t.Fatalf("archive: %v", err)
	}
	if res.Action != want {
		t.Fatalf("action = %s, want %s", res.Action, want)
	}
	return res
}

func (fx *fixture) stored(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	p, _ := fx.store.StoredPath(fx.src)
	if _, err := Decompress(&b, p); err != nil {
		t.Fatalf("decompress: %v", err)
	}
	return b.String()
}

func sameInode(t *testing.T, a, b string) bool {
	t.Helper()
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

func TestLinkMode(t *testing.T) {
	fx := newFixture(t, ModeLink)
	res := fx.archive(t, Linked)
	want := filepath.Join(fx.store.Dir, "claude-code", "projects", "-home-example-p", filepath.Base(fx.live))
	if res.Stored != want || !sameInode(t, fx.live, want) {
		t.Fatalf("stored %s, want a hard link at %s", res.Stored, want)
	}
	fx.archive(t, Unchanged)
	appendFile(t, fx.live, "{\"b\":2}\n")
	fx.archive(t, Unchanged) // appended in place: the link is current
	if got := fx.stored(t); got != "{\"a\":1}\n{\"b\":2}\n" {
		t.Fatalf("stored = %q", got)
	}
	// A trim replaces the file with a new inode: re-link.
	tmp := fx.live + ".new"
	writeFile(t, tmp, "{\"trimmed\":1}\n")
	if err := os.Rename(tmp, fx.live); err != nil {
		t.Fatal(err)
	}
	fx.archive(t, Relinked)
	if !sameInode(t, fx.live, want) {
		t.Fatal("not re-linked to the new inode")
	}
	// The cleanup unlinks the live file: the archive keeps the data.
	os.Remove(fx.live)
	if got := fx.stored(t); got != "{\"trimmed\":1}\n" {
		t.Fatalf("after unlink stored = %q", got)
	}
}

func TestPermissions(t *testing.T) {
	for _, mode := range []string{ModeLink, ModeCopy} {
		fx := newFixture(t, mode)
		res := fx.archive(t, map[string]string{ModeLink: Linked, ModeCopy: Copied}[mode])
		for d := filepath.Dir(res.Stored); d != filepath.Dir(fx.store.Dir); d = filepath.Dir(d) {
			fi, err := os.Stat(d)
			if err != nil || fi.Mode().Perm() != 0o700 {
				t.Fatalf("%s: dir %s mode %v, want 0700", mode, d, fi.Mode().Perm())
			}
		}
		if mode == ModeCopy {
			if fi, _ := os.Stat(res.Stored); fi.Mode().Perm() != 0o600 {
				t.Fatalf("copy mode %v, want 0600", fi.Mode().Perm())
			}
		}
		// The live file's own mode is never touched.
		if fi, _ := os.Stat(fx.live); fi.Mode().Perm() != 0o644 {
			t.Fatalf("live file mode changed to %v", fi.Mode().Perm())
		}
	}
}

func TestCopyAppendShrinkRewrite(t *testing.T) {
	fx := newFixture(t, ModeCopy)
	fx.archive(t, Copied)
	p, _ := fx.store.StoredPath(fx.src)
	if !IsCompressed(p) || sameInode(t, p, fx.live) {
		t.Fatal("copy mode stored a link, not a compressed copy")
	}
	fx.archive(t, Unchanged)
	before, _ := os.ReadFile(p)
	appendFile(t, fx.live, "{\"b\":2}\n")
	res := fx.archive(t, Appended)
	if res.Bytes != int64(len("{\"b\":2}\n")) {
		t.Fatalf("appended %d bytes, want only the new line", res.Bytes)
	}
	after, _ := os.ReadFile(p)
	if !bytes.HasPrefix(after, before) {
		t.Fatal("append did not keep the earlier frames byte for byte")
	}
	if got := fx.stored(t); got != "{\"a\":1}\n{\"b\":2}\n" {
		t.Fatalf("after append = %q", got)
	}
	// Shrink: a full copy.
	writeFile(t, fx.live, "{\"c\":3}\n")
	fx.archive(t, Copied)
	if got := fx.stored(t); got != "{\"c\":3}\n" {
		t.Fatalf("after shrink = %q", got)
	}
	// Rewrite with the same length and more: prefix hash differs, full copy.
	writeFile(t, fx.live, "{\"d\":4}\n{\"e\":5}\n")
	fx.archive(t, Copied)
	if got := fx.stored(t); got != "{\"d\":4}\n{\"e\":5}\n" {
		t.Fatalf("after rewrite = %q", got)
	}
}

func TestEXDEVFallsBackToCopy(t *testing.T) {
	fx := newFixture(t, ModeLink)
	fx.store.Link = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EXDEV} }
	fx.archive(t, Copied)
	p, _ := fx.store.StoredPath(fx.src)
	if !IsCompressed(p) {
		t.Fatal("EXDEV did not fall back to a compressed copy")
	}
	appendFile(t, fx.live, "{\"b\":2}\n")
	fx.archive(t, Appended)
	if got := fx.stored(t); got != "{\"a\":1}\n{\"b\":2}\n" {
		t.Fatalf("stored = %q", got)
	}
	// A restore from a copy, with links still failing, copies too.
	os.Remove(fx.live)
	if err := fx.store.Restore(p, fx.live); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fx.live); string(b) != "{\"a\":1}\n{\"b\":2}\n" {
		t.Fatalf("restored = %q", b)
	}
}

func TestOtherLinkErrorsAreReported(t *testing.T) {
	fx := newFixture(t, ModeLink)
	fx.store.Link = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EIO} }
	if _, err := fx.store.Archive(fx.src); !errors.Is(err, syscall.EIO) {
		t.Fatalf("err = %v, want EIO", err)
	}
}

func TestRestoreRefusesExistingFile(t *testing.T) {
	for _, mode := range []string{ModeLink, ModeCopy} {
		fx := newFixture(t, mode)
		res, err := fx.store.Archive(fx.src)
		if err != nil {
			t.Fatal(err)
		}
		err = fx.store.Restore(res.Stored, fx.live) // the live file is still there
		if !errors.Is(err, ErrExists) {
			t.Fatalf("%s: restore over a live file: err = %v", mode, err)
		}
		if b, _ := os.ReadFile(fx.live); string(b) != "{\"a\":1}\n" {
			t.Fatalf("live file changed: %q", b)
		}
		os.Remove(fx.live)
		os.RemoveAll(filepath.Dir(fx.live)) // the cleanup may leave no project dir
		if err := fx.store.Restore(res.Stored, fx.live); err != nil {
			t.Fatalf("%s: restore: %v", mode, err)
		}
		if b, _ := os.ReadFile(fx.live); string(b) != "{\"a\":1}\n" {
			t.Fatalf("%s: restored %q", mode, b)
		}
		if mode == ModeLink && !sameInode(t, fx.live, res.Stored) {
			t.Fatal("link-mode restore should link back")
		}
		assertNoTemp(t, filepath.Dir(fx.live))
	}
}

func TestStoredPathRefusesOutsideRoot(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	for _, p := range []string{"/elsewhere/x.jsonl", "/root/../x.jsonl", "/root"} {
		if _, err := st.StoredPath(Source{Harness: "claude-code", Root: "/root", Path: p}); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("%s: err = %v", p, err)
		}
	}
}

// failAfter fails every write once n bytes went through, like a full disk.
type failAfter struct {
	w   io.Writer
	n   int
	err error
}

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		n, _ := f.w.Write(b[:f.n])
		f.n = 0
		return n, f.err
	}
	f.n -= len(b)
	return f.w.Write(b)
}

func TestInjectedFaultsLeavePreviousState(t *testing.T) {
	for _, fault := range []error{syscall.ENOSPC, syscall.EACCES} {
		fx := newFixture(t, ModeCopy)
		fx.archive(t, Copied)
		p, _ := fx.store.StoredPath(fx.src)
		before, _ := os.ReadFile(p)
		liveBefore := strings.Repeat("{\"x\":\"yyyyyyyyyy\"}\n", 5000)
		appendFile(t, fx.live, liveBefore)
		wrapTemp = func(w io.Writer) io.Writer { return &failAfter{w: w, n: len(before) + 100, err: fault} }
		_, err := fx.store.Archive(fx.src)
		wrapTemp = func(w io.Writer) io.Writer { return w }
		if !errors.Is(err, fault) {
			t.Fatalf("err = %v, want %v", err, fault)
		}
		after, _ := os.ReadFile(p)
		if !bytes.Equal(before, after) {
			t.Fatalf("%v: stored file changed after a failed refresh", fault)
		}
		assertNoTemp(t, filepath.Dir(p))
		if b, _ := os.ReadFile(fx.live); string(b) != "{\"a\":1}\n"+liveBefore {
			t.Fatal("live file changed")
		}
		fx.archive(t, Appended) // the next run completes it
		if got := fx.stored(t); got != "{\"a\":1}\n"+liveBefore {
			t.Fatal("refresh after the fault is incomplete")
		}
	}
}

func TestRestoreFaultLeavesNothing(t *testing.T) {
	fx := newFixture(t, ModeCopy)
	res := fx.archive(t, Copied)
	os.Remove(fx.live)
	wrapTemp = func(w io.Writer) io.Writer { return &failAfter{w: w, n: 2, err: syscall.ENOSPC} }
	err := fx.store.Restore(res.Stored, fx.live)
	wrapTemp = func(w io.Writer) io.Writer { return w }
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Lstat(fx.live); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a failed restore left a (partial) transcript")
	}
	assertNoTemp(t, filepath.Dir(fx.live))
}

func TestCorruptCopyIsRedone(t *testing.T) {
	fx := newFixture(t, ModeCopy)
	res := fx.archive(t, Copied)
	// A copy whose proof does not match its source prefix is never
	// extended: change the source's first byte keeping its size, then grow.
	writeFile(t, fx.live, "{\"A\":1}\n{\"b\":2}\n")
	fx.archive(t, Copied)
	if got := fx.stored(t); got != "{\"A\":1}\n{\"b\":2}\n" {
		t.Fatalf("stored = %q", got)
	}
	// A stored file with a broken trailer is not ours to extend: redone.
	b, _ := os.ReadFile(res.Stored)
	os.WriteFile(res.Stored, b[:len(b)-3], 0o600)
	fx.archive(t, Copied)
	if got := fx.stored(t); got != "{\"A\":1}\n{\"b\":2}\n" {
		t.Fatalf("stored = %q", got)
	}
}

func TestWalkIndexRemove(t *testing.T) {
	fx := newFixture(t, ModeLink)
	res := fx.archive(t, Linked)
	os.WriteFile(filepath.Join(filepath.Dir(res.Stored), ".x.jsonl.tmp-1-2"), nil, 0o600)
	ix, err := fx.store.BuildIndex(map[string]string{"claude-code": fx.root}, map[string]string{res.Stored: "0b6e1a2c"}, nowUTC())
	if err != nil || len(ix.Entries) != 1 {
		t.Fatalf("index %+v, %v", ix, err)
	}
	e := ix.Entries[0]
	if e.Live != fx.live || e.ID != "0b6e1a2c" || e.LiveGone || e.DiskBytes != 0 || e.Mode != ModeLink {
		t.Fatalf("entry %+v", e)
	}
	os.Remove(fx.live)
	ix, _ = fx.store.BuildIndex(map[string]string{"claude-code": fx.root}, nil, nowUTC())
	if !ix.Entries[0].LiveGone || ix.Entries[0].DiskBytes == 0 {
		t.Fatalf("after unlink %+v", ix.Entries[0])
	}
	if err := fx.store.SaveIndex(ix); err != nil {
		t.Fatal(err)
	}
	if back, err := fx.store.LoadIndex(); err != nil || len(back.Entries) != 1 {
		t.Fatalf("load %+v %v", back, err)
	}
	if err := fx.store.Remove(Entry{Stored: "/etc/passwd"}); err == nil {
		t.Fatal("Remove outside the store was allowed")
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if IsTemp(e.Name()) {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

func nowUTC() time.Time { return time.Now().UTC() }

func TestBatchCopiesThenFlush(t *testing.T) {
	fx := newFixture(t, ModeCopy)
	fx.store.Batch = true
	fx.archive(t, Copied)
	appendFile(t, fx.live, "{\"b\":2}\n")
	fx.archive(t, Appended)
	if len(fx.store.dirty) == 0 {
		t.Fatal("a batch copy did not mark the store for Flush")
	}
	if err := fx.store.Flush(); err != nil || len(fx.store.dirty) != 0 {
		t.Fatalf("flush: %v", err)
	}
	if got := fx.stored(t); got != "{\"a\":1}\n{\"b\":2}\n" {
		t.Fatalf("stored = %q", got)
	}
}

// Inside decides as StoredPath does: the hooks skip what StoredPath would
// refuse with ErrOutsideRoot.
func TestInsideAgreesWithStoredPath(t *testing.T) {
	st := &Store{Dir: "/home/example/archive"}
	root := "/home/example/.claude"
	for _, p := range []string{
		root + "/projects/p/s.jsonl", root, root + "/..", "/home/example/.claude2/x.jsonl",
		"/tmp/big/.claude/projects/p/s.jsonl", "relative/s.jsonl", root + "/../.claude/projects/s.jsonl", "",
	} {
		_, err := st.StoredPath(Source{Harness: "claude-code", Root: root, Path: p})
		outside := errors.Is(err, ErrOutsideRoot)
		if Inside(root, p) == outside {
			t.Errorf("%q: Inside %v, StoredPath's error %v", p, Inside(root, p), err)
		}
	}
	if Inside("", "/home/example/.claude/x") {
		t.Error("no root: inside")
	}
}

// TestCopyShrinkDuringReadKeepsPreviousCopy: the live transcript is
// truncated between the fstat that gives its size and the read (issue 23,
// item 12). The compressor reads less without an error; the new copy must
// not replace the good one with a trailer claiming the full size.
func TestCopyShrinkDuringReadKeepsPreviousCopy(t *testing.T) {
	for _, name := range []string{"full copy", "append"} {
		t.Run(name, func(t *testing.T) {
			fx := newFixture(t, ModeCopy)
			first := "{\"a\":1}\n"
			if name == "full copy" {
				// A stored copy that the live file no longer extends:
				// the next run copies it whole.
				fx.archive(t, Copied)
				writeFile(t, fx.live, "{\"x\":1}\n{\"y\":2}\n{\"z\":3}\n")
			} else {
				fx.archive(t, Copied)
				appendFile(t, fx.live, "{\"b\":2}\n{\"c\":3}\n")
			}
			p, _ := fx.store.StoredPath(fx.src)
			before, _ := os.ReadFile(p)
			shrinkTo := int64(len(first) + 3)
			afterStat = func(f *os.File) { os.Truncate(f.Name(), shrinkTo) }
			defer func() { afterStat = func(*os.File) {} }()
			_, err := fx.store.Archive(fx.src)
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("err = %v, want ErrChanged", err)
			}
			if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
				t.Fatal("the previous copy was replaced")
			}
			if got := fx.stored(t); got != first {
				t.Fatalf("stored = %q, want the previous copy %q", got, first)
			}
			assertNoTemp(t, filepath.Dir(p))
			// Restorable as it was.
			os.Remove(fx.live)
			if err := fx.store.Restore(p, fx.live); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(fx.live); string(b) != first {
				t.Fatalf("restored %q", b)
			}
		})
	}
}

// TestSymlinkedRootAcceptsResolvedPath: CODEX_HOME reached through a
// symlink, and the rollout path recorded resolved (as the real Codex does):
// the file is under the root, stored where the link's spelling puts it.
func TestSymlinkedRootAcceptsResolvedPath(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "dotfiles", "codex")
	rel := filepath.Join("sessions", "2026", "12", "01", "rollout-2026-12-01T10-00-00-01a2.jsonl")
	os.MkdirAll(filepath.Dir(filepath.Join(real, rel)), 0o755)
	writeFile(t, filepath.Join(real, rel), "{}\n")
	link := filepath.Join(base, ".codex")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	st := &Store{Dir: filepath.Join(base, "archive")}
	for _, c := range []struct{ root, path string }{{link, filepath.Join(real, rel)}, {real, filepath.Join(link, rel)}, {link, filepath.Join(link, rel)}} {
		if !Inside(c.root, c.path) {
			t.Errorf("Inside(%s, %s) = false", c.root, c.path)
		}
		res, err := st.Archive(Source{Harness: "codex", Root: c.root, Path: c.path})
		if err != nil {
			t.Fatalf("archive %s under %s: %v", c.path, c.root, err)
		}
		if want := filepath.Join(st.Dir, "codex", rel); res.Stored != want {
			t.Fatalf("stored %s, want %s", res.Stored, want)
		}
	}
	if Inside(link, filepath.Join(base, "elsewhere", "x.jsonl")) {
		t.Error("a path outside the resolved root is inside")
	}
}

// TestSymlinkInsideArchiveIsRefused: a directory of the archive replaced
// by a symlink to elsewhere (issue 23, item 14). Nothing may be linked or
// copied through it; the error names it.
func TestSymlinkInsideArchiveIsRefused(t *testing.T) {
	for _, mode := range []string{ModeLink, ModeCopy} {
		for _, where := range []string{"project", "harness", "file"} {
			t.Run(mode+"/"+where, func(t *testing.T) {
				fx := newFixture(t, mode)
				outside := t.TempDir()
				dst, _ := fx.store.StoredPath(fx.src)
				planted := map[string]string{"project": filepath.Dir(dst), "harness": fx.store.HarnessDir("claude-code"), "file": dst}[where]
				os.MkdirAll(filepath.Dir(planted), 0o700)
				target := outside
				if where == "file" {
					target = filepath.Join(outside, "victim")
					writeFile(t, target, "not a transcript\n")
				}
				if err := os.Symlink(target, planted); err != nil {
					t.Fatal(err)
				}
				_, err := fx.store.Archive(fx.src)
				if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), planted) {
					t.Fatalf("err = %v, want ErrSymlink naming %s", err, planted)
				}
				ents, _ := os.ReadDir(outside)
				if where == "file" {
					if b, _ := os.ReadFile(target); len(ents) != 1 || string(b) != "not a transcript\n" {
						t.Fatalf("outside changed: %v %q", ents, b)
					}
				} else if len(ents) != 0 {
					t.Fatalf("written outside the archive: %v", ents)
				}
			})
		}
	}
}

func decompressFile(t *testing.T, p string) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := Decompress(&b, p); err != nil {
		t.Fatalf("decompress %s: %v", p, err)
	}
	return b.String()
}

// TestLinkChangedInPlaceIsUnlinked: link mode, and the live transcript
// truncated or rewritten in place (issue 23, item 18). The link shares the
// inode, so that change reached the archive too; the next pass notices it
// (a shrink, or the recorded prefix's hash) and breaks the link, so the
// next in-place change destroys nothing kept.
func TestLinkChangedInPlaceIsUnlinked(t *testing.T) {
	for _, how := range []string{"truncate", "rewrite same length"} {
		t.Run(how, func(t *testing.T) {
			fx := newFixture(t, ModeLink)
			fx.archive(t, Linked)
			appendFile(t, fx.live, "{\"b\":2}\n")
			fx.archive(t, Unchanged)
			p, _ := fx.store.StoredPath(fx.src)
			switch how {
			case "truncate": // : > file, then the agent writes on
				if err := os.Truncate(fx.live, 0); err != nil {
					t.Fatal(err)
				}
				appendFile(t, fx.live, "{\"c\":3}\n")
			default: // an editor writing in place
				f, _ := os.OpenFile(fx.live, os.O_WRONLY, 0)
				f.WriteAt([]byte("{\"A\":1}\n"), 0)
				f.Close()
				later := time.Now().Add(time.Second)
				os.Chtimes(fx.live, later, later)
			}
			now, _ := os.ReadFile(fx.live)
			fx.archive(t, Unlinked)
			if !IsCompressed(p) || sameInode(t, p, fx.live) {
				t.Fatal("the link was not replaced by a copy")
			}
			if got := fx.stored(t); got != string(now) {
				t.Fatalf("stored %q, want what the live file holds now %q", got, now)
			}
			// From now on a copy: appended, and the next in-place change
			// keeps what was archived.
			appendFile(t, fx.live, "{\"d\":4}\n")
			fx.archive(t, Appended)
			before := fx.stored(t)
			if err := os.Truncate(fx.live, 0); err != nil {
				t.Fatal(err)
			}
			res := fx.archive(t, Copied)
			if res.Kept == "" || decompressFile(t, res.Kept) != before {
				t.Fatalf("earlier copy not kept (kept %q)", res.Kept)
			}
			if rel, _ := filepath.Rel(fx.store.Dir, res.Kept); !strings.HasPrefix(rel, ".replaced"+string(filepath.Separator)+"claude-code") {
				t.Fatalf("kept at %s", res.Kept)
			}
			// The hooks (links only) leave a copy alone.
			fx.store.LinkOnly = true
			if _, err := fx.store.Archive(fx.src); !IsBudget(err) || !IsCompressed(p) {
				t.Fatalf("hook over a copy: %v", err)
			}
			// Neither the kept copy nor the ledger is listed as a session.
			n := 0
			fx.store.Walk([]string{"claude-code"}, func(Entry) { n++ })
			if n != 1 {
				t.Fatalf("walk found %d stored files", n)
			}
		})
	}
}

// TestCopyShrinkKeepsEarlierCopy: copy mode, and the live transcript
// shrinks (": > file"): the new copy is written, and the earlier one kept.
func TestCopyShrinkKeepsEarlierCopy(t *testing.T) {
	fx := newFixture(t, ModeCopy)
	fx.archive(t, Copied)
	appendFile(t, fx.live, "{\"b\":2}\n")
	fx.archive(t, Appended)
	writeFile(t, fx.live, "")
	res := fx.archive(t, Copied)
	if res.Kept == "" || decompressFile(t, res.Kept) != "{\"a\":1}\n{\"b\":2}\n" {
		t.Fatalf("earlier copy not kept (%q)", res.Kept)
	}
	if got := fx.stored(t); got != "" {
		t.Fatalf("stored %q", got)
	}
}

// TestRelinkKeepsLastLinkOfOldInode: link mode, the live transcript
// replaced by a new, shorter inode (sed -i, an editor that renames) that
// nothing else links: the archive held the old inode's last link, and
// keeps it.
func TestRelinkKeepsLastLinkOfOldInode(t *testing.T) {
	fx := newFixture(t, ModeLink)
	fx.archive(t, Linked)
	tmp := fx.live + ".new"
	writeFile(t, tmp, "{}\n")
	os.Rename(tmp, fx.live)
	res := fx.archive(t, Relinked)
	if res.Kept == "" {
		t.Fatal("the old inode's last link was dropped")
	}
	if b, _ := os.ReadFile(res.Kept); string(b) != "{\"a\":1}\n" {
		t.Fatalf("kept %q", b)
	}
	// With another link to the old inode (trim's backup), nothing is kept.
	fx2 := newFixture(t, ModeLink)
	fx2.archive(t, Linked)
	os.Link(fx2.live, fx2.live+".bak")
	writeFile(t, tmp, "{}\n")
	os.MkdirAll(filepath.Dir(fx2.live), 0o755)
	os.Rename(tmp, fx2.live)
	if res := fx2.archive(t, Relinked); res.Kept != "" {
		t.Fatalf("kept %s though the backup links it", res.Kept)
	}
}

// TestRecordsRefuseSymlinks: the index and the link ledgers are not
// written through a symlink planted in their place either.
func TestRecordsRefuseSymlinks(t *testing.T) {
	fx := newFixture(t, ModeLink)
	outside := t.TempDir()
	os.MkdirAll(fx.store.Dir, 0o700)
	victim := filepath.Join(outside, "victim")
	writeFile(t, victim, "mine\n")
	os.Symlink(victim, fx.store.IndexPath())
	if err := fx.store.SaveIndex(Index{Version: 1}); !errors.Is(err, ErrSymlink) {
		t.Fatalf("SaveIndex through a symlink: %v", err)
	}
	os.Symlink(outside, filepath.Join(fx.store.Dir, ".links"))
	fx.store.Batch = true
	fx.archive(t, Linked)
	if err := fx.store.Flush(); !errors.Is(err, ErrSymlink) {
		t.Fatalf("ledger through a symlink: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Fatalf("written outside: %v", ents)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine\n" {
		t.Fatalf("victim now %q", b)
	}
}
