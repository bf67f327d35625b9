// Package atomicfile replaces files so that a reader, a crash or a failed
// write never sees anything but the old or the new content.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Options control a replacement.
type Options struct {
	// Perm is the mode of a newly created file; an existing file keeps its
	// mode.
	Perm os.FileMode
	// Backup, when set, keeps the previous content at path+Backup (for
	// example ".bak"), hard-linked or copied before the rename, so the
	// backup exists before the original is replaced.
	Backup string
	// NoSync skips the fsyncs, for derived state that is cheap to
	// recompute and written on a hot path (the hook's session state).
	// The rename still makes the replacement atomic for readers; only
	// durability across a crash is given up.
	NoSync bool
}

// hooks lets tests inject failures at each step.
var (
	syncFile = func(f *os.File) error { return f.Sync() }
	rename   = os.Rename
)

// Write replaces path with the bytes produced by fill. fill writes to a
// temporary file in the same directory; on any error the temporary file is
// removed and path is left exactly as it was.
//
// A symlinked path (a dotfile manager's settings.json, rc file, …) is
// written through: the temporary file, the backup and the rename all
// happen next to the link's final target, so the link stays a link and
// the user's dotfiles get the change.
func Write(path string, opts Options, fill func(w io.Writer) error) (err error) {
	path, err = Resolve(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	perm := opts.Perm
	if perm == 0 {
		perm = 0o600
	}
	if st, statErr := os.Stat(path); statErr == nil {
		perm = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("chmod temporary file: %w", err)
	}
	if err = fill(tmp); err != nil {
		return err
	}
	if !opts.NoSync {
		if err = syncFile(tmp); err != nil {
			return fmt.Errorf("sync %s: %w", tmp.Name(), err)
		}
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if opts.Backup != "" {
		if err = backup(path, path+opts.Backup); err != nil {
			return err
		}
	}
	if err = rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	if !opts.NoSync {
		syncDir(dir)
	}
	return nil
}

// maxLinks bounds a chain of symlinks, as the kernel's ELOOP does.
const maxLinks = 40

// Resolve follows path's symlinks, each hop, to the file a write must
// replace. A dangling link resolves to its missing target (the write
// creates it); a path that is not a link is returned as is. Only the last
// component is followed: directories on the way may be links, the rename
// goes through them anyway.
func Resolve(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", path, err)
		}
		if !filepath.IsAbs(dest) {
			// Resolve the link's directory first, so a "../x" in the
			// link means what the kernel makes of it.
			dir := filepath.Dir(path)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			dest = filepath.Join(dir, dest)
		}
		path = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// WriteBytes is Write for content already in memory.
func WriteBytes(path string, data []byte, opts Options) error {
	return Write(path, opts, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// backup copies the current content of path to dst atomically. A missing
// path needs no backup.
func backup(path, dst string) error {
	src, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	err = Write(dst, Options{Perm: st.Mode().Perm()}, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
	if err != nil {
		return fmt.Errorf("backup to %s: %w", dst, err)
	}
	return nil
}

// syncDir makes the rename durable. Failure is ignored: some file systems
// cannot sync directories, and the rename itself already succeeded.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
