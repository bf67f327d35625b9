package archive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A hard link shares the live file's inode: an in-place truncation or
// rewrite of the transcript (": > file", an editor that writes in place)
// is done to the archive's copy too, and what it held is gone before
// tether can look. What tether can do is notice it and keep that session
// as a separate compressed copy from then on, so that the next one
// destroys nothing. To notice, the ledger records, per linked stored
// file, the live inode, size and mtime last seen and a hash of the
// recorded prefix's head and tail; a later listing or sync that finds the
// same inode smaller, or with that hash changed, has found an in-place
// change. It lives beside the store (Dir/.links/<harness>/<dir>.links, one
// small text file per stored directory), is written only by listings and
// sync (which hold the store's lock), and is a record, not the truth: a
// lost ledger only means the next pass records afresh.

// ledgerDir is the directory of the ledgers, inside the archive.
const ledgerDir = ".links"

// Sum windows: the first headWindow bytes of the recorded prefix and its
// last tailWindow bytes. A rewrite that keeps the length and changes only
// bytes between them is not noticed (docs/archive.md says so).
const (
	headWindow = 16 << 10
	tailWindow = 4 << 10
)

// linkRec is what a linked stored file was when last seen.
type linkRec struct {
	Ino   uint64
	Size  int64
	MTime int64
	Sum   uint64
}

type ledger struct {
	path  string
	recs  map[string]linkRec
	dirty bool
}

// ledgerPath is the ledger of stored directory dir.
func (s *Store) ledgerPath(dir string) (string, bool) {
	rel, ok := lexicalRel(s.Dir, dir)
	if !ok {
		return "", false
	}
	return filepath.Join(s.Dir, ledgerDir, rel+".links"), true
}

// ledgerOf loads (once per Store) the ledger of stored directory dir.
func (s *Store) ledgerOf(dir string) *ledger {
	if l, ok := s.ledgers[dir]; ok {
		return l
	}
	if s.ledgers == nil {
		s.ledgers = map[string]*ledger{}
	}
	l := &ledger{recs: map[string]linkRec{}}
	s.ledgers[dir] = l
	p, ok := s.ledgerPath(dir)
	if !ok {
		return l
	}
	l.path = p
	f, err := openNoFollow(p)
	if err != nil {
		return l
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<20))
	for sc.Scan() {
		name, rec, ok := parseLinkRec(sc.Text())
		if ok {
			l.recs[name] = rec
		}
	}
	return l
}

func parseLinkRec(line string) (string, linkRec, bool) {
	f := strings.Split(line, "\t")
	if len(f) != 5 || f[0] == "" {
		return "", linkRec{}, false
	}
	var r linkRec
	var err [4]error
	r.Ino, err[0] = strconv.ParseUint(f[1], 10, 64)
	r.Size, err[1] = strconv.ParseInt(f[2], 10, 64)
	r.MTime, err[2] = strconv.ParseInt(f[3], 10, 64)
	r.Sum, err[3] = strconv.ParseUint(f[4], 16, 64)
	if errors.Join(err[:]...) != nil || r.Size < 0 {
		return "", linkRec{}, false
	}
	return f[0], r, true
}

// saveLedgers writes the ledgers that changed (atomically, 0600).
func (s *Store) saveLedgers() error {
	var first error
	for dir, l := range s.ledgers {
		if !l.dirty || l.path == "" {
			continue
		}
		var b bytes.Buffer
		for name, r := range l.recs {
			if strings.ContainsAny(name, "\t\n") {
				continue
			}
			fmt.Fprintf(&b, "%s\t%d\t%d\t%d\t%x\n", name, r.Ino, r.Size, r.MTime, r.Sum)
		}
		err := s.writeRecord(l.path, b.Bytes())
		if err != nil && first == nil {
			first = fmt.Errorf("archive ledger of %s: %w", dir, err)
		}
		l.dirty = err != nil
	}
	return first
}

// writeRecord writes a record file of the store (a ledger): a temporary
// file beside it, renamed over it; no fsync (a lost record costs one
// more read, and a listing must not flush the file system for it).
func (s *Store) writeRecord(path string, data []byte) (err error) {
	if err := s.checkDirs(filepath.Dir(path), true); err != nil {
		return err
	}
	tmp, err := os.OpenFile(tempName(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// prefixSum hashes the head and tail windows of f's first size bytes.
func prefixSum(f io.ReaderAt, size int64) (uint64, error) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\n", size)
	head := min(size, headWindow)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, head)); err != nil {
		return 0, err
	}
	if from := max(head, size-tailWindow); from < size {
		if _, err := io.Copy(h, io.NewSectionReader(f, from, size-from)); err != nil {
			return 0, err
		}
	}
	return h.Sum64(), nil
}

// sumOf is prefixSum of the file at path.
func sumOf(path string, size int64) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return prefixSum(f, size)
}

// checkLink compares a linked stored file (the same inode as live) with
// its ledger record and updates the record. changed is set when the live
// file shrank or the recorded prefix was rewritten since: an in-place
// change the link could not survive.
func (s *Store) checkLink(livePath, dst string, live fs.FileInfo) (changed bool, err error) {
	l := s.ledgerOf(filepath.Dir(dst))
	name := filepath.Base(dst)
	rec, ok := l.recs[name]
	now := linkRec{Ino: inode(live), Size: live.Size(), MTime: live.ModTime().UnixNano()}
	if ok && rec == (linkRec{Ino: now.Ino, Size: now.Size, MTime: now.MTime, Sum: rec.Sum}) {
		return false, nil // not written since: nothing read
	}
	if ok && rec.Ino == now.Ino {
		if now.Size < rec.Size {
			return true, nil
		}
		sum, err := sumOf(livePath, rec.Size)
		if err != nil {
			return false, err
		}
		if sum != rec.Sum {
			return true, nil
		}
	}
	if now.Sum, err = sumOf(livePath, now.Size); err != nil {
		return false, err
	}
	l.recs[name], l.dirty = now, true
	if !s.Batch {
		return false, s.saveLedgers()
	}
	return false, nil
}

// forgetLink drops the ledger record of dst (no longer a link).
func (s *Store) forgetLink(dst string) {
	if s.LinkOnly {
		return // the hooks keep no ledger; its record names another inode
	}
	l := s.ledgerOf(filepath.Dir(dst))
	if _, ok := l.recs[filepath.Base(dst)]; ok {
		delete(l.recs, filepath.Base(dst))
		l.dirty = true
	}
}

// keptDir is where earlier stored files are kept when the live transcript
// no longer extends them (Result.Kept).
const keptDir = ".replaced"

// keepName is where the stored file dst is kept before it is replaced.
func (s *Store) keepName(dst string, now time.Time) (string, bool) {
	rel, ok := lexicalRel(s.Dir, dst)
	if !ok {
		return "", false
	}
	return filepath.Join(s.Dir, keptDir, rel+"."+now.UTC().Format("20060102T150405.000000000Z")), true
}

// keep links the stored file dst under its kept name (the stored name is
// replaced right after, by a rename, so it is never missing).
func (s *Store) keep(dst string) (string, error) {
	p, ok := s.keepName(dst, time.Now())
	if !ok {
		return "", fmt.Errorf("%s is not in the archive %s", dst, s.Dir)
	}
	if err := s.checkDirs(filepath.Dir(p), true); err != nil {
		return "", err
	}
	if err := os.Link(dst, p); err != nil {
		return "", fmt.Errorf("keep the earlier copy of %s: %w", dst, err)
	}
	return p, nil
}
