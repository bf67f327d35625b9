package trim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// fileOps is the write path, swappable so tests can fail or kill it at
// every step.
type fileOps struct {
	write  func(f *os.File, b []byte) (int, error)
	sync   func(f *os.File) error
	link   func(oldname, newname string) error
	rename func(oldname, newname string) error
	// step is called at named points of a commit ("written", "synced",
	// "validated", "backed-up", "renamed"); a test may stop the process there.
	step func(name string)
}

var ops = fileOps{
	write:  func(f *os.File, b []byte) (int, error) { return f.Write(b) },
	sync:   func(f *os.File) error { return f.Sync() },
	link:   os.Link,
	rename: os.Rename,
	step:   func(string) {},
}

type opsWriter struct{ f *os.File }

func (w opsWriter) Write(b []byte) (int, error) { return ops.write(w.f, b) }

// Target is the file a trim of path reads and replaces: the target of a
// symlink (so the link stays a link), else path itself. The backup, the
// lock, temporary files and --restore all follow this one rule, so a
// trim through a link and a restore through it (or through the target)
// meet the same files.
func Target(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// BackupPath is where a trim keeps the previous content of path: next to
// its Target.
func BackupPath(path string) string { return Target(path) + ".bak" }

// File trims the transcript at path in place. It takes the lock, plans,
// writes the result to a temporary file in the same directory, fsyncs it,
// validates it by reading it back, keeps the original as <path>.bak
// (rotating an older backup to .bak.1, .bak.2, …) and renames the result
// into place. On any error the original is left byte-for-byte as it was.
// With dryRun nothing is written; the report is still exact, and the
// result is still validated.
func File(path string, opts Options, dryRun bool) (*Report, error) {
	// Replace the file a symlink points at, not the symlink.
	path = Target(path)
	unlock, err := Lock(path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	removeStaleTemps(path)
	RemoveLeftovers(filepath.Dir(path)) // other sessions' dead trims
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, err
	}
	plan, err := MakePlan(f, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rep := plan.Report
	rep.Path, rep.DryRun = path, dryRun
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if !rep.Changed {
		// Nothing to write, so nothing to validate either: the wrapper's
		// automatic fit of a session that already fits costs one pass.
		rep.BytesAfter = rep.BytesBefore
		return rep, nil
	}
	if dryRun {
		pr, pw := io.Pipe()
		verr := make(chan error, 1)
		go func() {
			err := Validate(pr)
			pr.CloseWithError(err)
			io.Copy(io.Discard, pr)
			verr <- err
		}()
		n, err := plan.Apply(f, pw)
		pw.CloseWithError(err)
		if vErr := <-verr; err == nil && vErr != nil {
			err = fmt.Errorf("%s: the trimmed transcript would not be valid: %w", path, vErr)
		}
		if err != nil {
			return nil, err
		}
		rep.BytesAfter = n
		return rep, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".trim-*")
	if err != nil {
		return nil, fmt.Errorf("create temporary file: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(before.Mode().Perm()); err != nil {
		return nil, err
	}
	n, err := plan.Apply(f, opsWriter{tmp})
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	rep.BytesAfter = n
	ops.step("written")
	if err := ops.sync(tmp); err != nil {
		return nil, fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	ops.step("synced")
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// The validator reads the written file back through the plan's line
	// buffer (the plan is not needed any more: the collector may take it).
	buf := plan.takeBuffer()
	if _, err := validate(tmp, buf); err != nil {
		return nil, fmt.Errorf("%s: the trimmed transcript is not valid, nothing was modified: %w", path, err)
	}
	ops.step("validated")
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	// The agent may have appended while we worked; its lines would be lost.
	if now, err := os.Stat(path); err != nil || now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime()) {
		return nil, fmt.Errorf("%s: %w", path, ErrChanged)
	}
	bak, err := keepBackup(path)
	if err != nil {
		return nil, err
	}
	rep.Backup = bak
	ops.step("backed-up")
	if err := ops.rename(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("rename into place: %w", err)
	}
	committed = true
	syncDir(filepath.Dir(path))
	ops.step("renamed")
	return rep, nil
}

// keepBackup rotates <path>.bak to .bak.1 (and so on up) and makes
// <path>.bak a hard link to the current content (a copy where links are
// not possible), so a 1 GB transcript is backed up without copying it.
func keepBackup(path string) (string, error) {
	bak := BackupPath(path)
	if err := rotate(bak); err != nil {
		return "", err
	}
	if err := ops.link(path, bak); err != nil {
		if err := copyFile(path, bak); err != nil {
			return "", fmt.Errorf("backup %s: %w", bak, err)
		}
	}
	return bak, nil
}

// rotate moves name to name.1, name.1 to name.2, … so that name is free
// and no backup is overwritten.
func rotate(name string) error {
	if _, err := os.Lstat(name); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	n := 1
	for ; ; n++ {
		if _, err := os.Lstat(name + "." + strconv.Itoa(n)); errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	for ; n >= 1; n-- {
		from := name
		if n > 1 {
			from = name + "." + strconv.Itoa(n-1)
		}
		if err := ops.rename(from, name+"."+strconv.Itoa(n)); err != nil {
			return fmt.Errorf("rotate backup %s: %w", from, err)
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return err
	}
	if _, err := io.Copy(opsWriter{tmp}, in); err != nil {
		return err
	}
	if err := ops.sync(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return ops.rename(tmp.Name(), dst)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
