// Command tether keeps Claude Code and Codex sessions findable, resumable
// and healthy. See the README.
//
// This package is tether's command line: the command tree over the one
// dependency container both binaries share (hot.Deps, in cmd/internal/hot),
// and the mapping from errors to exit statuses. Each command has an options
// struct and a runX function that takes it, so commands are tested without
// a process or a terminal.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/tether-dev/tether/cmd/internal/hot"
)

// version is set at build time by install.sh (-ldflags "-X main.version=…").
var version = ""

func main() {
	if version == "" {
		version = hot.DefaultVersion()
	}
	os.Exit(Main(version, os.Args))
}

// Main runs tether with args (os.Args) and returns the process exit status.
func Main(version string, args []string) int {
	ctx, stop := signalContext()
	defer stop()
	if path := os.Getenv("TETHER_CPUPROFILE"); path != "" {
		// For profiling a whole command: go tool pprof tether PATH.
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			} else {
				f.Close()
			}
		}
	}
	code := New(version).Run(ctx, hot.MultiCall(args))
	if os.Getenv("TETHER_DEBUG_IO") == "1" {
		// For scripts/bench.sh: what this process read, page cache
		// included (rchar), as the kernel counts it.
		if b, err := os.ReadFile("/proc/self/io"); err == nil {
			fmt.Fprintf(os.Stderr, "tether: io %s\n", strings.Join(strings.Fields(string(b)), " "))
		}
	}
	return code
}

// signalContext is cancelled by SIGINT or SIGTERM, so long-running commands
// (log --follow) stop cleanly.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
