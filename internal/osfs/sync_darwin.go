package osfs

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// SyncBatch makes durable the files at written, renamed into place under
// dir without an fsync each, and the directories holding them. macOS has
// no syncfs and its sync(2) does not wait: each file and directory gets
// an fsync(2), which reaches the drive, then one F_FULLFSYNC of dir
// flushes the drive's cache for all of them (it is the device's cache,
// so once is enough). A file gone since (replaced again) is skipped.
func SyncBatch(dir string, written []string) error {
	var errs []error
	dirs := map[string]bool{}
	for _, p := range written {
		dirs[filepath.Dir(p)] = true
		errs = append(errs, fsync(p))
	}
	for d := range dirs {
		errs = append(errs, fsync(d))
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := unix.FcntlInt(f.Fd(), unix.F_FULLFSYNC, 0); err != nil {
		errs = append(errs, unix.Fsync(int(f.Fd()))) // not every file system has it
	}
	return errors.Join(errs...)
}

func fsync(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Fsync(int(f.Fd()))
}
