package trim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrLocked means another trim holds the session's lock.
var ErrLocked = errors.New("another tether trim is working on this session")

// Lock takes the session's trim lock (flock on <target>.lock) without
// waiting. The returned function releases it and removes the lock file, so
// none stays in Claude Code's projects directory. Removing a lock file
// others may have opened is safe because a holder checks, after flock,
// that the name still refers to the file it locked, and starts over if not.
func Lock(path string) (func(), error) {
	name := Target(path) + ".lock"
	for try := 0; try < 20; try++ {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%s: %w", path, ErrLocked)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(name)
		if err1 != nil || err2 != nil || !os.SameFile(held, named) {
			f.Close() // the previous holder removed it: lock the new one
			continue
		}
		return func() {
			os.Remove(name)
			f.Close()
		}, nil
	}
	return nil, fmt.Errorf("%s: %w", path, ErrLocked)
}

// lockHeld reports whether a live trim holds the lock of session file
// path. It creates nothing: no lock file means no holder.
func lockHeld(path string) bool {
	f, err := os.Open(path + ".lock")
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	return false
}

// leftoverOwner returns the session file a trim leftover in a projects
// directory belongs to, or "" when name is not one: a lock file
// (<id>.jsonl.lock), a trim's temporary file (.<id>.jsonl.trim-N) or a
// backup or restore copy's temporary file (.<id>.jsonl.bak.tmp-N, …).
func leftoverOwner(name string) string {
	if id, ok := strings.CutSuffix(name, ".jsonl.lock"); ok && id != "" && !strings.HasPrefix(id, ".") {
		return id + ".jsonl"
	}
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return ""
	}
	i := strings.Index(rest, ".jsonl.")
	if i <= 0 {
		return ""
	}
	tail := rest[i+len(".jsonl"):]
	if strings.HasPrefix(tail, ".trim-") || strings.Contains(tail, ".tmp-") {
		return rest[:i+len(".jsonl")]
	}
	return ""
}

// Leftovers lists what dead trims left in dir (a Claude Code project
// directory): temporary files and lock files of sessions no live trim
// holds. It changes nothing.
func Leftovers(dir string) []string {
	var out []string
	held := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		owner := leftoverOwner(e.Name())
		if owner == "" || !e.Type().IsRegular() {
			continue
		}
		sess := filepath.Join(dir, owner)
		h, ok := held[sess]
		if !ok {
			h = lockHeld(sess)
			held[sess] = h
		}
		if !h {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// RemoveLeftovers removes Leftovers(dir), each session's under its lock
// so a trim starting meanwhile is never robbed of its files. It returns
// how many files it removed.
func RemoveLeftovers(dir string) (int, error) {
	bySession := map[string][]string{}
	for _, p := range Leftovers(dir) {
		owner := filepath.Join(dir, leftoverOwner(filepath.Base(p)))
		bySession[owner] = append(bySession[owner], p)
	}
	n := 0
	var firstErr error
	for sess, files := range bySession {
		unlock, err := Lock(sess)
		if err != nil {
			continue // a trim started: its files are not leftovers
		}
		for _, f := range files {
			if strings.HasSuffix(f, ".lock") {
				n++ // unlock removes it
				continue
			}
			if err := os.Remove(f); err == nil {
				n++
			} else if !errors.Is(err, os.ErrNotExist) && firstErr == nil {
				firstErr = err
			}
		}
		unlock()
	}
	return n, firstErr
}

// removeStaleTemps deletes temporary files a killed trim of path left
// behind. Only a trim holding the lock creates them, and we hold it now.
func removeStaleTemps(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for _, pat := range []string{"." + globEscape(base) + ".trim-*", "." + globEscape(base) + "*.tmp-*"} {
		stale, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, s := range stale {
			os.Remove(s)
		}
	}
}

func globEscape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}
