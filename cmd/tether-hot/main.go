// A process that lives for milliseconds has no use for the runtime's
// GOMAXPROCS updates, whose goroutine every Go program starts at start.
//
//go:debug updatemaxprocs=0

// Command tether-hot is the small executable behind tether's hot paths:
// the hooks, the statusLine, the shell prompt and completion, and the
// claude/codex wrappers run it instead of tether, because it starts in
// about the time of an empty Go program (it links neither the catalog nor
// SQLite nor the command-line framework). Any other command line it hands
// to the tether next to it, so tether stays the one command people type.
package main

import (
	"os"

	"github.com/tether-dev/tether/cmd/internal/hot"
)

// version is set at build time by install.sh, like tether's
// (-ldflags "-X main.version=…"); tether doctor checks that they agree.
var version = ""

func main() {
	os.Exit(hot.Main(version, os.Args))
}
