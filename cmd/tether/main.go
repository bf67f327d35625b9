// Command tether keeps Claude Code and Codex sessions findable, resumable
// and healthy. See the README.
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
