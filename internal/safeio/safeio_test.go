package safeio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO is refused at once (no wait for a writer), a link only by the
// Own variants, a regular file read whole.
func TestOpenRegularOnly(t *testing.T) {
	dir := t.TempDir()
	file, fifo, link := filepath.Join(dir, "f"), filepath.Join(dir, "p"), filepath.Join(dir, "l")
	os.WriteFile(file, []byte("data"), 0o600)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Symlink(file, link)
	for _, read := range []func(string) ([]byte, error){ReadFile, ReadOwn} {
		if b, err := read(file); err != nil || string(b) != "data" {
			t.Errorf("regular: %q %v", b, err)
		}
		if _, err := read(fifo); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO: %v", err)
		}
		if _, err := read(dir); !errors.Is(err, ErrNotRegular) {
			t.Errorf("directory: %v", err)
		}
		if _, err := read(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("missing: %v", err)
		}
	}
	if b, err := ReadFile(link); err != nil || string(b) != "data" {
		t.Errorf("ReadFile through a link: %q %v", b, err)
	}
	if _, err := ReadOwn(link); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ReadOwn of a link: %v", err)
	}
	if _, err := OpenAppend(fifo, 0o600); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenAppend of a FIFO nobody reads: %v", err)
	}
	if f, err := OpenAppend(filepath.Join(dir, "log"), 0o600); err != nil {
		t.Errorf("OpenAppend: %v", err)
	} else {
		f.Close()
	}
}

// CheckDir passes a private directory (and one not made yet) and names
// what is wrong with one others may write to or own.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckDir(dir); err != nil {
		t.Errorf("private: %v", err)
	}
	if err := CheckDir(filepath.Join(dir, "later")); err != nil {
		t.Errorf("missing: %v", err)
	}
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	if err := CheckDir(open); !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), open+": writable by group or others (mode 0777)") {
		t.Errorf("0777: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(open, link)
	if err := CheckDir(link); !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), "a link to "+open) {
		t.Errorf("link to 0777: %v", err)
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(dir, "theirs")
		os.Mkdir(theirs, 0o700)
		os.Chown(theirs, 65534, 65534)
		if err := CheckDir(theirs); !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("another owner: %v", err)
		}
	}
}
