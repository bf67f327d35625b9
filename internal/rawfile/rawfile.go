// Package rawfile reads and writes small files with plain system calls,
// for the hot paths (hooks, statusline, prompt, completion). An *os.File
// costs a process that opens only a few files a noticeable share of its
// life: each open asks the runtime's poller to register the descriptor
// (two fcntl and a failing epoll_ctl for a regular file), and the first
// one sets up a finalizer goroutine. Errors are *fs.PathError with the
// operation and path os would name, so callers test them the same way
// (errors.Is(err, fs.ErrNotExist)).
package rawfile

import (
	"io"
	"io/fs"
	"path"
	"syscall"
	"time"
)

// open is open(2) with O_CLOEXEC, retried on EINTR as os does.
func open(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC, perm)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}

// ReadFile is os.ReadFile without an *os.File.
func ReadFile(path string) ([]byte, error) {
	fd, err := open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	size := 512
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Size > 0 && st.Size < 1<<30 {
		size = int(st.Size) + 1 // one more byte sees the end in one read
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
			return data, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return data, nil
		}
		data = data[:len(data)+n]
	}
}

// File is a read-only descriptor with random access: what the transcript
// readers need (io.ReaderAt, io.Closer and the size).
type File struct {
	fd   int
	name string
	st   syscall.Stat_t
}

// OpenNonblock opens path for reading without blocking (a FIFO named as
// a file would block the open until a writer appears) and fstats the
// opened descriptor, so the caller checks the file it has, not a path
// that may have been swapped since (see IsRegular).
func OpenNonblock(path string) (f *File, err error) {
	fd, err := open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f = &File{fd: fd, name: path}
	for {
		err = syscall.Fstat(fd, &f.st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return f, nil
}

// IsRegular reports whether the opened file is a regular file.
func (f *File) IsRegular() bool { return f.st.Mode&syscall.S_IFMT == syscall.S_IFREG }

// Info is the fstat(2) of the opened file as os.File.Stat gives it.
func (f *File) Info() fs.FileInfo { return fileInfo{name: path.Base(f.name), st: f.st} }

// Fd is the descriptor (valid until Close).
func (f *File) Fd() int { return f.fd }

// Name is the path the file was opened by.
func (f *File) Name() string { return f.name }

// ReadAt is os.File.ReadAt: it fills p unless the file ends first (then
// io.EOF).
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		m, err := syscall.Pread(f.fd, p[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

// Close closes the descriptor.
func (f *File) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// CreateExcl creates path (which must not exist) with perm for writing.
func CreateExcl(path string, perm uint32) (int, error) {
	return open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL, perm)
}

// WriteAll writes data to fd, as os.File.Write does (all of it or an
// error).
func WriteAll(fd int, path string, data []byte) error {
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		if n == 0 {
			return &fs.PathError{Op: "write", Path: path, Err: io.ErrShortWrite}
		}
		data = data[n:]
	}
	return nil
}

// fileInfo is os's fileStat for Linux: the same mode bits and times.
type fileInfo struct {
	name string
	st   syscall.Stat_t
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.st.Size }
func (fi fileInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi fileInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi fileInfo) Sys() any           { return &fi.st }

func (fi fileInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.st.Mode & 0o777)
	switch fi.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if fi.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if fi.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if fi.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
