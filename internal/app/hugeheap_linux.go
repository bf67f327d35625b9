package app

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// hugeHeapBytes is the heap a warm list of 10,000 sessions fills (~30 MB
// with the collector off).
const hugeHeapBytes = 32 << 20

// hugeHeap asks the kernel to back the heap a listing is about to fill
// with transparent huge pages, where it gives them only to memory that
// asks (the common "madvise" setting): a warm list of 10,000 sessions
// touched ~7,000 fresh 4 KiB pages, each a page fault (~4 us on a VM:
// a quarter of its CPU time); in 2 MiB pages they are ~16 faults. Where
// huge pages are always on it changes nothing; where they are off the
// advice is ignored.
//
// Go does not advise its heap itself, and maps it in 4 MiB steps, so the
// heap is grown once by a region of that size (fresh from the kernel and
// not yet touched), advised, and freed by one collection of a heap that
// is still nearly empty (under a millisecond): what the listing
// allocates next is carved from that region. Only while the collector is
// off (listGC): a running collector would soon hand the region back.
// Untouched parts cost nothing; the resident size grows by up to a huge
// page's rounding (44 -> 48 MiB at 10,000 sessions).
func hugeHeap() {
	b := make([]byte, hugeHeapBytes)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE) // advice: ignored where unsupported
	runtime.KeepAlive(b)
	b = nil
	runtime.GC()
}
