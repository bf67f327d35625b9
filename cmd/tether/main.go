// Command tether keeps Claude Code and Codex sessions findable, resumable
// and healthy. See the README.
package main

import (
	"os"

	"github.com/tether-dev/tether/internal/app"
)

// version is set at build time by install.sh (-ldflags "-X main.version=…").
var version = ""

func main() {
	if version == "" {
		version = app.DefaultVersion()
	}
	os.Exit(app.Main(version, os.Args))
}
