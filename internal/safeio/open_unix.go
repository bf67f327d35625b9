//go:build unix

package safeio

import (
	"io/fs"
	"syscall"
)

// openRegular opens path read-only and non-blocking and fstats what it
// opened (not the path, which may have been swapped since). Plain system
// calls: the hot paths open a few small files per process, and an
// *os.File's first open sets up the runtime's poller.
func openRegular(path string, noFollow bool) (fd int, st syscall.Stat_t, err error) {
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	for {
		fd, err = syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ELOOP && noFollow {
		return -1, st, notRegular(path, fs.ModeSymlink)
	}
	if err != nil {
		return -1, st, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return -1, st, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if t := uint32(st.Mode) & syscall.S_IFMT; t != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, st, notRegular(path, modeType(t))
	}
	// A regular file never blocks; a blocking descriptor keeps os.NewFile
	// from registering it with the poller.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return -1, st, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return fd, st, nil
}

func readFile(path string, noFollow bool) ([]byte, error) {
	fd, st, err := openRegular(path, noFollow)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	size := 512
	if st.Size > 0 && st.Size < 1<<30 {
		size = int(st.Size) + 1 // one byte more sees the end in one read
	}
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := syscall.Read(fd, data[len(data):cap(data)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return data, nil
		}
		data = data[:len(data)+n]
	}
}

func modeType(t uint32) fs.FileMode {
	switch t {
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// OpenAppend opens tether's own append-only file at path (a log) for
// writing at its end, creating it with perm: a descriptor, for one
// write(2) per record. A FIFO (whose open for writing would wait for a
// reader), a device or a symbolic link there is refused.
func OpenAppend(path string, perm uint32) (int, error) {
	flags := syscall.O_WRONLY | syscall.O_APPEND | syscall.O_CREAT | syscall.O_NONBLOCK | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags, perm)
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err == syscall.ELOOP:
		return -1, notRegular(path, fs.ModeSymlink)
	case err == syscall.ENXIO:
		// O_WRONLY|O_NONBLOCK on a FIFO nobody reads.
		return -1, notRegular(path, fs.ModeNamedPipe)
	case err != nil:
		return -1, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if t := uint32(st.Mode) & syscall.S_IFMT; t != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, notRegular(path, modeType(t))
	}
	return fd, nil
}
