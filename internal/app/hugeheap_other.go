//go:build !linux

package app

// hugeHeap is a no-op where transparent huge pages do not exist (see
// hugeheap_linux.go).
func hugeHeap() {}
