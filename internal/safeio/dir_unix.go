//go:build unix

package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/tether-dev/tether/internal/shquote"
)

// ErrUnsafeDir is the error (under a *DirError) for a directory that
// someone else owns or may write to.
var ErrUnsafeDir = errors.New("unsafe directory")

// DirError says why a directory of tether's is not used.
type DirError struct {
	Path   string
	Reason string
}

func (e *DirError) Error() string { return e.Path + ": " + e.Reason }
func (e *DirError) Unwrap() error { return ErrUnsafeDir }

// CheckDir reports whether dir can hold tether's files: a directory
// (reached through symbolic links or not) owned by this user that nobody
// else may write to. Anyone else who can write there can plant files
// tether would read (a cache, a state file, a link to their own
// directory) and read what it writes, so a dir that fails is neither
// read nor written. A dir that does not exist yet passes: tether creates
// its directories with mode 0700; so does a file in the directory's place
// (each use then fails with ENOTDIR).
func CheckDir(dir string) error {
	var st syscall.Stat_t
	var err error
	for {
		err = syscall.Stat(dir, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ENOENT || err == syscall.ENOTDIR {
		return nil
	}
	if err != nil {
		return &fs.PathError{Op: "stat", Path: dir, Err: err}
	}
	uid := os.Geteuid()
	why := ""
	switch {
	case uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFDIR:
		// Nothing can be opened under it: each use fails on its own.
		return nil
	case int(st.Uid) != uid:
		why = fmt.Sprintf("owned by uid %d, not by you (uid %d)", st.Uid, uid)
	case st.Mode&0o022 != 0:
		why = fmt.Sprintf("writable by group or others (mode %04o)", st.Mode&0o7777)
	default:
		return nil
	}
	if l, err := os.Readlink(dir); err == nil {
		why += " (a link to " + l + ")"
	}
	if int(st.Uid) == uid {
		why += "; fix: chmod go-w " + shquote.Quote(dir)
	}
	return &DirError{dir, why}
}
