package rawfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// ReadFile must read what os.ReadFile reads, whatever the size (one read
// sized by fstat, growth past it, files whose fstat size is 0 like /proc's).
func TestReadFileAsOS(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 4096, 100_000} {
		p := filepath.Join(dir, "f")
		data := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: got %d bytes, %v", size, len(got), err)
		}
	}
	want, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	got, err := ReadFile("/proc/self/status")
	if err != nil || len(got) < len(want)/2 || !bytes.HasPrefix(got, []byte("Name:")) {
		t.Fatalf("/proc/self/status: %d bytes (os: %d), %v", len(got), len(want), err)
	}
}

// Errors are the *fs.PathError os returns, so callers' errors.Is and
// messages stay as they were.
func TestErrorsAsOS(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing")
	_, err := ReadFile(p)
	_, oserr := os.ReadFile(p)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != oserr.Error() {
		t.Fatalf("ReadFile(missing) = %v, os: %v", err, oserr)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != p {
		t.Fatalf("not a PathError naming open and the path: %#v", err)
	}
	if _, err := OpenNonblock(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenNonblock(missing) = %v", err)
	}
	_, err = ReadFile(filepath.Dir(p))
	_, oserr = os.ReadFile(filepath.Dir(p))
	if err == nil || err.Error() != oserr.Error() {
		t.Fatalf("ReadFile(dir) = %v, os: %v", err, oserr)
	}
}

// A FIFO opens at once (no writer needed) and is reported as not regular.
func TestOpenNonblockFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan *File, 1)
	go func() {
		f, err := OpenNonblock(p)
		if err != nil {
			t.Error(err)
		}
		done <- f
	}()
	select {
	case f := <-done:
		if f == nil {
			return
		}
		defer f.Close()
		if f.IsRegular() || f.Info().Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("FIFO: regular %v, mode %v", f.IsRegular(), f.Info().Mode())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenNonblock blocked on a FIFO")
	}
}

// Info is what os.Stat says; ReadAt fills the buffer or ends with io.EOF.
func TestFileAsOSFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(p, []byte("hello world"), 0o640); err != nil {
		t.Fatal(err)
	}
	f, err := OpenNonblock(p)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(p)
	got := f.Info()
	if !f.IsRegular() || got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() ||
		!got.ModTime().Equal(want.ModTime()) || got.IsDir() {
		t.Fatalf("Info = %v %d %v %v, os.Stat = %v %d %v %v", got.Name(), got.Size(), got.Mode(), got.ModTime(),
			want.Name(), want.Size(), want.Mode(), want.ModTime())
	}
	buf := make([]byte, 5)
	if n, err := f.ReadAt(buf, 6); n != 5 || err != nil || string(buf) != "world" {
		t.Fatalf("ReadAt = %d %v %q", n, err, buf)
	}
	if n, err := f.ReadAt(buf, 8); n != 3 || err != io.EOF {
		t.Fatalf("ReadAt past the end = %d %v", n, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("second Close = %v", err)
	}
}

func TestCreateExclWriteAll(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new")
	fd, err := CreateExcl(p, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(fd, p, []byte("data")); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	if b, _ := os.ReadFile(p); string(b) != "data" {
		t.Fatalf("wrote %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("mode %v", st.Mode())
	}
	if _, err := CreateExcl(p, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateExcl(existing) = %v", err)
	}
}
