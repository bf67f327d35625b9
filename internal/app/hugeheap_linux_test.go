package app

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// What a listing allocates after hugeHeap lies in memory advised for huge
// pages (smaps' "hg" flag): the region it grew the heap by is reused.
func TestHugeHeapAdvisesWhatIsAllocatedNext(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	hugeHeap()
	var bufs [][]byte
	for range 64 {
		bufs = append(bufs, make([]byte, 64<<10))
	}
	advised := 0
	for _, b := range bufs {
		if vmaFlags(t, uintptr(unsafe.Pointer(&b[0])))["hg"] {
			advised++
		}
	}
	if advised < len(bufs)/2 {
		t.Errorf("%d of %d allocations after hugeHeap are in advised memory", advised, len(bufs))
	}
}

// vmaFlags returns the VmFlags of this process's mapping holding addr.
func vmaFlags(t *testing.T, addr uintptr) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && !strings.HasSuffix(f[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if in && f[0] == "VmFlags:" {
			flags := map[string]bool{}
			for _, fl := range f[1:] {
				flags[fl] = true
			}
			return flags
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}
