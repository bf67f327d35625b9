package scan

import (
	"errors"
	"syscall"

	"github.com/tether-dev/tether/internal/procfs"
)

// ProcessInspector answers questions about live processes.
type ProcessInspector interface {
	// Alive reports whether a process with this pid exists.
	Alive(pid int) bool
}

// OpenFileFinder finds the processes holding files open. Codex leaves no
// pid file, so a thread counts as running while a process holds its
// rollout open.
type OpenFileFinder interface {
	OpenBy(paths map[string]bool) map[string]int
}

// OSProcesses inspects this machine's processes.
type OSProcesses struct{}

// Alive uses signal 0: EPERM still means the process exists.
func (OSProcesses) Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// OpenBy scans /proc for processes holding any of paths open and returns
// the pid for each path found. Processes it may not inspect are skipped;
// without /proc nothing is found.
func (OSProcesses) OpenBy(paths map[string]bool) map[string]int {
	return procfs.FS{}.OpenBy(paths)
}
