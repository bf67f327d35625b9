package osfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// SyncBatch makes durable the files at written, renamed into place under
// dir without an fsync each, and the directories holding them. On Linux
// one syncfs(2) of dir's file system does it all, written or not.
func SyncBatch(dir string, written []string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
