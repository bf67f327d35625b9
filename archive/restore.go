package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrExists is returned (wrapped) when a restore would replace a file.
var ErrExists = errors.New("a file is already there; tether never restores over an existing file")

// Restore puts the transcript stored at stored back at live. It never
// replaces anything: when live exists it changes nothing and returns an
// error wrapping ErrExists. A plain stored file on the same file system is
// linked back (one syscall, and the session stays archived); otherwise the
// transcript is written to a temporary file in live's directory, fsynced,
// and linked into place, which fails rather than overwrite a file that
// appeared meanwhile.
func (s *Store) Restore(stored, live string) error {
	if _, err := os.Lstat(live); err == nil {
		return fmt.Errorf("restore %s: %w", live, ErrExists)
	}
	if fi, err := os.Lstat(stored); err != nil {
		return fmt.Errorf("restore from %s: %w", stored, err)
	} else if err := checkStored(fi, stored); err != nil {
		return fmt.Errorf("restore from %w", err)
	}
	compressed := IsCompressed(stored)
	if _, err := currentCodec(); compressed && err != nil {
		// Checked before anything is written: the caller can hand the
		// whole command to a binary that has the codec.
		return fmt.Errorf("restore from %s: %w", stored, err)
	}
	if err := os.MkdirAll(filepath.Dir(live), 0o700); err != nil {
		return fmt.Errorf("restore %s: %w", live, err)
	}
	if !compressed {
		err := s.link(stored, live)
		if err == nil {
			return nil
		}
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("restore %s: %w", live, ErrExists)
		}
		if !isCrossDevice(err) {
			return fmt.Errorf("restore %s: %w", live, err)
		}
	}
	return restoreCopy(stored, live)
}

func restoreCopy(stored, live string) (err error) {
	tmp, err := os.OpenFile(tempName(live), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("restore %s: %w", live, err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name()) // after the link, only the temporary name goes
	}()
	if _, err = Decompress(wrapTemp(tmp), stored); err != nil {
		return fmt.Errorf("restore %s: %w", live, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("restore %s: %w", live, err)
	}
	// The transcript's own mtime is the session's last activity.
	if fi, err := os.Stat(stored); err == nil {
		mt := fi.ModTime()
		if t, ok := readTrailer(stored); ok {
			mt = time.Unix(0, t.ModNano)
		}
		_ = os.Chtimes(tmp.Name(), mt, mt)
	}
	if err = os.Link(tmp.Name(), live); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("restore %s: %w", live, ErrExists)
		}
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) {
			// No hard links here: a rename cannot refuse to replace, so
			// check once more right before it.
			if _, statErr := os.Lstat(live); statErr == nil {
				return fmt.Errorf("restore %s: %w", live, ErrExists)
			}
			if err = os.Rename(tmp.Name(), live); err == nil {
				return nil
			}
		}
		return fmt.Errorf("restore %s: %w", live, err)
	}
	return nil
}

// Entry is one stored file found by Walk.
type Entry struct {
	Harness string
	Stored  string
	Info    fs.FileInfo
}

// Compressed reports a compressed copy.
func (e Entry) Compressed() bool { return IsCompressed(e.Stored) }

// LastWrite is when the source was last written as far as the archive
// knows: the trailer's mtime for a copy, the file's own for a link.
func (e Entry) LastWrite() time.Time {
	if t, ok := readTrailer(e.Stored); ok {
		return time.Unix(0, t.ModNano)
	}
	return e.Info.ModTime()
}

// Walk calls fn for every stored file of harness (every harness when "").
// Temporary files of a crashed run are skipped.
func (s *Store) Walk(harnesses []string, fn func(Entry)) error {
	for _, h := range harnesses {
		root := s.HarnessDir(h)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || !d.Type().IsRegular() || IsTemp(d.Name()) {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			fn(Entry{Harness: h, Stored: path, Info: fi})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// CleanTemps removes the temporary files a killed run left in the store
// when they are older than age (a running sync's own are younger). It
// returns how many it removed.
func (s *Store) CleanTemps(harnesses []string, age time.Duration) int {
	n := 0
	cutoff := time.Now().Add(-age)
	dirs := []string{filepath.Join(s.Dir, ledgerDir), filepath.Join(s.Dir, keptDir)}
	for _, h := range harnesses {
		dirs = append(dirs, s.HarnessDir(h))
	}
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !IsTemp(d.Name()) {
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.ModTime().Before(cutoff) && os.Remove(path) == nil {
				n++
			}
			return nil
		})
	}
	return n
}

// KeptDir is where earlier stored files are kept when a transcript
// shrank or was rewritten (Result.Kept): zstd copies or plain files,
// named after the stored file and the time they were set aside.
func (s *Store) KeptDir() string { return filepath.Join(s.Dir, keptDir) }

// Kept counts the files in KeptDir and their bytes.
func (s *Store) Kept() (n int, bytes int64) {
	_ = filepath.WalkDir(s.KeptDir(), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !IsTemp(d.Name()) {
			if fi, err := d.Info(); err == nil {
				n++
				bytes += fi.Size()
			}
		}
		return nil
	})
	return n, bytes
}

// Remove deletes one stored file (prune). It refuses anything outside
// the store.
func (s *Store) Remove(e Entry) error {
	rel, err := filepath.Rel(s.Dir, e.Stored)
	if err != nil || rel == "." || filepath.IsAbs(rel) || len(rel) >= 2 && rel[:2] == ".." {
		return fmt.Errorf("%s is not in the archive %s", e.Stored, s.Dir)
	}
	return os.Remove(e.Stored)
}

// Lock takes the store's lock without waiting; ok is false when another
// process holds it (a sync or a catalog scan already runs). unlock
// releases it.
func (s *Store) Lock() (unlock func(), ok bool, err error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, false, err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, ".lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}
