package searchindex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Writers of one index take its lock file first, so that two tethers
// building a cold index at once do not both insert every session (the
// second failed on files.key's UNIQUE constraint, or with SQLITE_BUSY
// when SQLite's own lock upgrade deadlocked): one builds, the other
// waits for it and then finds little or nothing to do. Readers take no
// lock (SQLite's shared lock keeps them consistent).

// lockFile is the writers' lock beside the index at path. It is not one
// of files(): removing a lock another process holds would let a third
// take a new one beside it.
func lockFile(path string) string { return path + "-lock" }

// lockWait bounds the wait for another writer (a first build at 10,000
// sessions takes well under it); a variable for tests.
var lockWait = 3 * time.Minute

// ErrLocked is returned when another tether held the index's lock for
// all of lockWait.
var ErrLocked = errors.New("another tether is writing the search index")

// lock takes the index's writer lock, waiting for another writer up to
// lockWait (or until ctx ends). waiting, when set, is called once if the
// lock is held by another. The lock file is opened without following a
// link and without blocking, and must be a regular file.
func lock(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	name := lockFile(path)
	fd, err := syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("search index lock %s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("search index lock %s: not a regular file", name)
	}
	deadline := time.Now().Add(lockWait)
	pause := 10 * time.Millisecond
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("search index lock %s: %w", name, err)
		}
		if waiting != nil {
			waiting()
			waiting = nil
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s held for %s)", ErrLocked, name, lockWait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}
