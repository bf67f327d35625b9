// Command gowrap is the floor for `tether run` in scripts/bench.sh: the
// least a Go program can do to wrap another one transparently and stay
// its parent — fork and exec it on the same standard streams, pass on the
// signals sent to the wrapper (the six tether forwards), wait, and leave
// with its status. No checks, no logging, no environment or argument
// handling.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2)
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}}
	pid, err := syscall.ForkExec(os.Args[1], os.Args[1:], attr)
	if err != nil {
		os.Exit(127)
	}
	go func() {
		for s := range sigs {
			_ = syscall.Kill(pid, s.(syscall.Signal))
		}
	}()
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	if ws.Signaled() {
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(ws.ExitStatus())
}
