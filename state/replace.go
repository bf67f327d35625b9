package state

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// replaceNoSync writes data to path atomically for readers and concurrent
// writers, without fsync: a temporary file in path's directory renamed
// over path. It is for the hooks' session state, written on every
// lifecycle event: a power loss can leave the file empty, which like the
// missing fsync is fine for state the next event recomputes (an
// unreadable state file is replaced, not trusted).
func replaceNoSync(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	pattern := "." + filepath.Base(path) + ".tmp-*"
	f, err := os.CreateTemp(dir, pattern)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, DirMode); err != nil {
			return err
		}
		f, err = os.CreateTemp(dir, pattern)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// A file a user made more private than FileMode stays so.
	if st, err := os.Stat(path); err == nil && st.Mode().Perm() != FileMode {
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// linkRoot makes the root index at rootPath a symbolic link to the
// session file at sessionPath (relative, so the state directory can
// move). Nothing is written when it already points there, as it does for
// every event of a session but the first in its root; otherwise the new
// link replaces the old one (or an older tether's copy) in one rename.
func linkRoot(rootPath, sessionPath string) error {
	dir := filepath.Dir(rootPath)
	target, err := filepath.Rel(dir, sessionPath)
	if err != nil {
		return err
	}
	if cur, err := os.Readlink(rootPath); err == nil && cur == target {
		return nil
	}
	tmp := filepath.Join(dir, "."+filepath.Base(rootPath)+".tmp-"+randomSuffix())
	err = os.Symlink(target, tmp)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, DirMode); err != nil {
			return err
		}
		err = os.Symlink(target, tmp)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, rootPath); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// randomSuffix names a temporary file that no other writer picks.
func randomSuffix() string {
	return strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(rand.Uint64(), 36)
}
