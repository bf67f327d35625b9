//go:build unix

package safeio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens path read-only and non-blocking (a FIFO's open would
// wait for a writer) and checks by an fstat of what it opened (not the
// path, which may have been swapped since) that it is a regular file.
func openRegular(path string, noFollow bool) (*os.File, fs.FileInfo, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if noFollow && errors.Is(err, syscall.ELOOP) {
		return nil, nil, notRegular(path, fs.ModeSymlink)
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, st.Mode().Type())
	}
	return f, st, nil
}

func readFile(path string, noFollow bool) ([]byte, error) {
	f, st, err := openRegular(path, noFollow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// As os.ReadFile: room for the file and a byte more, to see its end.
	size := 512
	if st.Size() > 0 && st.Size() < 1<<30 {
		size = int(st.Size()) + 1
	}
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// OpenAppend opens tether's own append-only file at path (a log) for
// writing at its end, creating it with perm. A FIFO (whose open for
// writing would wait for a reader), a device or a symbolic link there is
// refused.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, perm)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, notRegular(path, fs.ModeSymlink)
	case errors.Is(err, syscall.ENXIO):
		// O_WRONLY|O_NONBLOCK on a FIFO nobody reads.
		return nil, notRegular(path, fs.ModeNamedPipe)
	case err != nil:
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, st.Mode().Type())
	}
	return f, nil
}
