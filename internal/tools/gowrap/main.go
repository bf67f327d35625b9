// Command gowrap is the floor for `tether run` in scripts/bench.sh: the
// least a Go program can do to wrap another one and stay its parent —
// fork and exec it on the same standard streams, wait, and leave with its
// status. No signal forwarding, no logging, no checks.
package main

import (
	"os"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}}
	pid, err := syscall.ForkExec(os.Args[1], os.Args[1:], attr)
	if err != nil {
		os.Exit(127)
	}
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	os.Exit(ws.ExitStatus())
}
