//go:build !linux

package catalog

import "os"

// mapFile reads the file at path (see mapfile_linux.go).
func mapFile(path string) (data []byte, unmap func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}
