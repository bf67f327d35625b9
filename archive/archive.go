// Package archive keeps every transcript the agents write, so a session
// survives Claude Code's cleanupPeriodDays (a plain unlink) and can be put
// back and resumed.
//
// The store mirrors each agent's own layout under Dir/<harness>/ (Claude
// Code: projects/<project>/<id>.jsonl; Codex: sessions/YYYY/MM/DD/… and
// archived_sessions/…), so the catalog's readers list archived sessions with
// the same code that lists live ones, and a restore knows where the file
// goes back. A stored file is either
//
//   - a hard link to the live transcript (mode "link", the default): the
//     agents append in place, so the link stays current for free, and an
//     unlink by the agent leaves tether's link holding the data; or
//   - a zstd stream (mode "copy", or when linking fails with EXDEV): one
//     frame per refresh, each followed by a skippable trailer frame that
//     records how many source bytes are in the archive and their SHA-256,
//     so an append-only refresh can prove the live file still starts with
//     what was copied before appending only the rest.
//
// The archive never writes to, renames or locks a live transcript. Every
// change to a stored file is a temporary file in the same directory plus a
// rename (or a single link), so a crash leaves the previous or the complete
// state.
package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/osfs"
)

// Modes.
const (
	ModeLink = "link"
	ModeCopy = "copy"
)

// Actions Archive reports.
const (
	Unchanged = "unchanged" // already current
	Linked    = "linked"    // a new hard link
	Relinked  = "relinked"  // the live file is a new inode: linked again
	Copied    = "copied"    // a full compressed copy (new, shrunk or rewritten source)
	Appended  = "appended"  // what was appended, added as one more frame
	// Unlinked: the live file was truncated or rewritten in place, which
	// a hard link shares: the link is replaced by a compressed copy of
	// what the file now holds, kept as a copy from then on.
	Unlinked = "unlinked"
)

// Store is the archive under Dir.
type Store struct {
	Dir  string
	Mode string // ModeLink (default) or ModeCopy
	// Link makes a hard link (os.Link); tests inject EXDEV.
	Link func(oldname, newname string) error
	// Budget, when > 0, caps the source bytes one Store compresses; files
	// beyond it are left for a later run (Skipped counts them). The catalog
	// scan sets it so that listing never compresses gigabytes.
	Budget int64

	// LinkOnly makes Archive do nothing it cannot do with a link (the
	// hooks: copies are left to listings and sync).
	LinkOnly bool

	// Batch skips the fsync of each file: many files are written, then
	// Flush syncs the file system once. A process that dies still leaves
	// every stored file previous or complete (the rename is atomic); only
	// a power loss before Flush can lose the new copies.
	Batch bool

	spent   int64
	Skipped int
	roots   map[string]string  // each source root, symlinks resolved
	ledgers map[string]*ledger // by stored directory (ledger.go)
	enc     Encoder
	dirty   []string // the copies a batch wrote that Flush has not synced
}

// Flush writes the link ledgers that changed and makes a batch's writes
// durable (osfs.SyncBatch: on Linux one syncfs of the store's file
// system); nothing when the batch wrote no copy.
func (s *Store) Flush() error {
	lerr := s.saveLedgers()
	if len(s.dirty) == 0 {
		return lerr
	}
	written := s.dirty
	s.dirty = nil
	return errors.Join(osfs.SyncBatch(s.Dir, written), lerr)
}

// Source is one live transcript.
type Source struct {
	Harness string // catalog harness name (claude-code, codex)
	ID      string // session id
	Root    string // the agent's data root (CLAUDE_CONFIG_DIR, CODEX_HOME)
	Path    string // the live file, under Root
}

// Result is what Archive did with one source.
type Result struct {
	Action string
	Stored string
	// Bytes is how many source bytes were compressed (copy mode).
	Bytes int64
	// Linked is set when the stored file is now a hard link to the live
	// file: appends to it need no further archiving.
	Linked bool
	// LiveMTime is the live file's mtime when it was archived.
	LiveMTime time.Time
	// Kept is where the earlier stored file was kept, when the live file
	// no longer extended it (shrunk or rewritten) and it was replaced.
	Kept string
}

// ErrOutsideRoot is returned for a live path that is not under its root.
var ErrOutsideRoot = errors.New("transcript is not under the agent's data directory")

// HarnessDir is where one harness's files are stored.
func (s *Store) HarnessDir(harness string) string { return filepath.Join(s.Dir, harness) }

// StoredPath is where src is (or would be) archived.
func (s *Store) StoredPath(src Source) (string, error) {
	if s.roots == nil {
		s.roots = map[string]string{}
	}
	rel, ok := relInside(src.Root, src.Path, s.roots)
	if !ok {
		return "", fmt.Errorf("%s: %w (%s)", src.Path, ErrOutsideRoot, src.Root)
	}
	if src.Harness == "" || strings.ContainsAny(src.Harness, `/\`) {
		return "", fmt.Errorf("archive: bad harness name %q", src.Harness)
	}
	return filepath.Join(s.HarnessDir(src.Harness), rel), nil
}

// Inside reports whether path is under root, as StoredPath decides it
// (ErrOutsideRoot). The hooks ask first: a transcript outside the agent's
// directory is not archived, and the error StoredPath builds for it (fmt,
// then errors.Is) is most of what such a hook would spend here.
func Inside(root, path string) bool {
	_, ok := relInside(root, path, nil)
	return ok
}

// relInside is path relative to root, when it is under it. The spelling
// given is tried first (no system call); then, as the identity root's
// rule has it, with symlinks resolved: Codex records the resolved
// rollout_path while CODEX_HOME may be reached through a symlink (a
// dotfiles setup), so the two spellings of one file must agree. memo, when
// set, remembers each root's resolution.
func relInside(root, path string, memo map[string]string) (string, bool) {
	if rel, ok := lexicalRel(root, path); ok {
		return rel, true
	}
	if root == "" || !filepath.IsAbs(path) {
		return "", false
	}
	rr, ok := memo[root]
	if !ok {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			r = ""
		}
		rr = r
		if memo != nil {
			memo[root] = rr
		}
	}
	if rr == "" {
		return "", false
	}
	if rel, ok := lexicalRel(rr, path); ok {
		return rel, true
	}
	// The path spelled through a link (the root itself resolved): resolve
	// its directory, not the file, which a link inside the root could
	// take elsewhere.
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", false
	}
	return lexicalRel(rr, filepath.Join(dir, filepath.Base(path)))
}

func lexicalRel(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// LivePath is where a stored file goes back to under root.
func (s *Store) LivePath(harness, stored, root string) (string, error) {
	rel, err := filepath.Rel(s.HarnessDir(harness), stored)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is not in the %s archive", stored, harness)
	}
	return filepath.Join(root, rel), nil
}

func (s *Store) mode() string {
	if s.Mode == ModeCopy {
		return ModeCopy
	}
	return ModeLink
}

func (s *Store) link(oldname, newname string) error {
	if s.Link != nil {
		return s.Link(oldname, newname)
	}
	return os.Link(oldname, newname)
}

// Archive brings src's stored file up to date. It is cheap when nothing
// changed: in link mode two stats (same inode: done), in copy mode a stat
// and the 68-byte trailer.
func (s *Store) Archive(src Source) (Result, error) {
	dst, err := s.StoredPath(src)
	if err != nil {
		return Result{}, err
	}
	live, err := os.Stat(src.Path)
	if err != nil {
		return Result{}, err
	}
	if !live.Mode().IsRegular() {
		return Result{}, fmt.Errorf("%s: not a regular file", src.Path)
	}
	// Checked before the cheap "unchanged" answers too: a link made
	// through a planted symlink before this check existed is reported.
	if err := s.checkDirs(filepath.Dir(dst), false); err != nil {
		return Result{Stored: dst}, err
	}
	if s.mode() == ModeLink && s.isCopy(dst, live) {
		// A session once kept as a copy (another file system, copy mode
		// before, or a link broken by an in-place change) stays a copy:
		// a link over it would drop what the live file no longer has.
		if s.LinkOnly {
			return Result{Stored: dst, Action: Unchanged}, errBudget
		}
		res, err := s.archiveCopy(src.Path, dst, live)
		res.LiveMTime = live.ModTime()
		return res, err
	}
	if s.mode() == ModeLink {
		res, err := s.archiveLink(src.Path, dst, live)
		res.Linked, res.LiveMTime = err == nil && res.Action != Unlinked, live.ModTime()
		if !isCrossDevice(err) {
			return res, err
		}
		// Another file system: a hard link cannot reach it.
		if s.LinkOnly {
			return res, errBudget
		}
	} else if s.LinkOnly {
		return Result{Stored: dst, Action: Unchanged}, errBudget
	}
	res, err := s.archiveCopy(src.Path, dst, live)
	res.LiveMTime = live.ModTime()
	return res, err
}

// isCopy reports whether the stored file dst is a compressed copy; the
// common case, a link to live, costs one lstat.
func (s *Store) isCopy(dst string, live fs.FileInfo) bool {
	old, err := os.Lstat(dst)
	return err == nil && old.Mode().IsRegular() && !os.SameFile(live, old) && IsCompressed(dst)
}

// isCrossDevice reports a link that cannot be made on this file system
// pair (EXDEV), or not at all here (EPERM from protected_hardlinks,
// file systems without hard links): copy instead.
func isCrossDevice(err error) bool {
	return errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EMLINK) ||
		errors.Is(err, syscall.ENOTSUP)
}

func (s *Store) archiveLink(livePath, dst string, live fs.FileInfo) (Result, error) {
	res := Result{Stored: dst}
	old, err := os.Lstat(dst)
	if err := checkStored(old, dst); err != nil {
		return res, err
	}
	if err == nil && os.SameFile(live, old) {
		if !s.LinkOnly {
			changed, err := s.checkLink(livePath, dst, live)
			if err != nil {
				return res, err
			}
			if changed {
				return s.unlink(livePath, dst, live)
			}
		}
		res.Action = Unchanged
		return res, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	if err := s.checkDirs(filepath.Dir(dst), true); err != nil {
		return res, err
	}
	if old == nil {
		// New: one link syscall.
		err := s.link(livePath, dst)
		if errors.Is(err, fs.ErrExist) {
			return s.archiveLink(livePath, dst, live) // another process won the race
		}
		res.Action = Linked
		if err == nil && !s.LinkOnly {
			_, err = s.checkLink(livePath, dst, live) // the first record
		}
		return res, err
	}
	// The live file is a new inode (trimmed, rewritten and renamed): link
	// it under a temporary name, then rename over the stored file, so the
	// archive is never without it. When the archive held the old inode's
	// only link and the new file does not extend it, the old one is kept.
	keepOld, err := s.onlyCopy(livePath, dst, live, old)
	if err != nil {
		return res, err
	}
	tmp := tempName(dst)
	if err := s.link(livePath, tmp); err != nil {
		return res, err
	}
	if keepOld {
		if res.Kept, err = s.keep(dst); err != nil {
			os.Remove(tmp)
			return res, err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return res, err
	}
	s.forgetLink(dst)
	res.Action = Relinked
	if !s.LinkOnly {
		_, err = s.checkLink(livePath, dst, live)
	}
	return res, err
}

// onlyCopy reports whether the plain stored file old, which is no longer
// the live inode, is the last link to what it holds (the archive's alone)
// and the live file does not start with it: replacing it would lose it.
func (s *Store) onlyCopy(livePath, dst string, live, old fs.FileInfo) (bool, error) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink > 1 || old.Size() == 0 {
		return false, nil
	}
	if live.Size() < old.Size() {
		return true, nil
	}
	a, err := sumOf(dst, old.Size())
	if err != nil {
		return false, err
	}
	b, err := sumOf(livePath, old.Size())
	if err != nil {
		return false, err
	}
	return a != b, nil
}

// unlink replaces the link dst, whose inode the live file shares and
// which was just found truncated or rewritten in place, by a compressed
// copy of what the live file holds now. What it held before is gone (the
// inode is one); from now on an in-place change costs nothing kept.
func (s *Store) unlink(livePath, dst string, live fs.FileInfo) (Result, error) {
	res, err := s.archiveCopy(livePath, dst, live)
	if err != nil {
		return res, err
	}
	s.forgetLink(dst)
	res.Action = Unlinked
	return res, nil
}

// ErrSymlink is returned (wrapped) for a symlink, or anything but a
// directory, where the archive keeps its directories, or a symlink where
// it keeps a stored file: followed, it would put live transcripts (hard
// links to them) outside the archive, where status and restore do not
// look.
var ErrSymlink = errors.New("is a symlink inside the archive; tether writes nothing through it (remove it)")

// checkDirs verifies that every component of dir below the archive's own
// directory is a real directory (the archive directory itself may be a
// symlink the user configured); with create, missing ones are made 0700.
func (s *Store) checkDirs(dir string, create bool) error {
	rel, ok := lexicalRel(s.Dir, dir)
	if !ok {
		return fmt.Errorf("%s is not in the archive %s", dir, s.Dir)
	}
	if create {
		if err := os.MkdirAll(s.Dir, 0o700); err != nil {
			return err
		}
	}
	p := s.Dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !create:
			return nil // nothing below it exists: nothing to follow
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			if fi, err = os.Lstat(p); err != nil { // another process's, maybe
				return err
			}
		case err != nil:
			return err
		}
		if !fi.IsDir() {
			if fi.Mode()&fs.ModeSymlink != 0 {
				return fmt.Errorf("%s %w", p, ErrSymlink)
			}
			return fmt.Errorf("%s: not a directory", p)
		}
	}
	return nil
}

// checkStored refuses a symlink where a stored file goes.
func checkStored(fi fs.FileInfo, path string) error {
	if fi != nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s %w", path, ErrSymlink)
	}
	return nil
}

// tempName is a temporary name beside path, hidden and unique enough for
// one process at a time (the catalog and sync hold the store lock).
func tempName(path string) string {
	return filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.tmp-%d-%d", filepath.Base(path), os.Getpid(), time.Now().UnixNano()))
}

// IsTemp reports a temporary file of the store (a crashed run's leftover).
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
