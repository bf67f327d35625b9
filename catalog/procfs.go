package catalog

import "github.com/tether-dev/tether/internal/procfs"

// OpenBy scans /proc for processes holding any of paths open and returns
// the pid for each path found. Processes it may not inspect are skipped;
// without /proc nothing is found.
func (OSProcesses) OpenBy(paths map[string]bool) map[string]int {
	return procfs.FS{}.OpenBy(paths)
}
