//go:build !linux

package procfs

// machineRoot is empty: macOS has no /proc (its process table is behind
// sysctl and libproc, which nothing here reads yet), so the zero FS is
// not Supported and reads nothing.
const machineRoot = ""
