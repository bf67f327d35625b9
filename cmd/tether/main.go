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
	"os"

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
