// Package safeio opens the files tether reads and checks the directories
// it keeps them in, so that nothing another user can plant there is acted
// on and no file can hang a reader. Every open is non-blocking (a FIFO's
// open would wait for a writer forever) and is followed by an fstat of
// the descriptor opened, which must be a regular file: a FIFO or a device
// is refused, with an error naming it, before anything is read.
package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is the error (under an *fs.PathError) for a path that
// names a FIFO, a device, a socket or a directory, or, for OpenOwn and
// ReadOwn, a symbolic link.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading; it must be a regular file (through
// symbolic links: the config file or a transcript may well be one).
func Open(path string) (*os.File, error) { return openFile(path, false) }

// OpenOwn is Open for a file tether itself writes (always by renaming a
// new file over it, never through a link): a symbolic link there is not
// followed but refused.
func OpenOwn(path string) (*os.File, error) { return openFile(path, true) }

// ReadFile reads the regular file at path (as Open) into one buffer.
func ReadFile(path string) ([]byte, error) { return readFile(path, false) }

// ReadOwn reads tether's own file at path (as OpenOwn) into one buffer.
func ReadOwn(path string) ([]byte, error) { return readFile(path, true) }

func openFile(path string, noFollow bool) (*os.File, error) {
	f, _, err := openRegular(path, noFollow)
	return f, err
}

// notRegular is the error for a file of mode type t.
func notRegular(path string, t fs.FileMode) error {
	what := "a " + t.String()
	switch {
	case t&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case t&fs.ModeDevice != 0:
		what = "a device"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeDir != 0:
		what = "a directory"
	case t&fs.ModeSymlink != 0:
		what = "a symbolic link"
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, what)}
}
