//go:build linux

package catalog

import (
	"os"
	"path/filepath"
	"strconv"
)

// OpenBy scans /proc for processes holding any of paths open and returns
// the pid for each path found. Processes it may not inspect are skipped.
func (OSProcesses) OpenBy(paths map[string]bool) map[string]int {
	out := map[string]int{}
	if len(paths) == 0 {
		return out
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join("/proc", p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err == nil && paths[target] {
				if _, seen := out[target]; !seen {
					out[target] = pid
				}
			}
		}
	}
	return out
}
