package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
)

// hotCheck reports whether tether-hot — the small binary the hooks, the
// shell scripts and the shims run — sits next to this tether and is the
// same version. Without it everything still works through tether itself,
// several times slower to start; a different version means a half-done
// install, whose hooks may disagree with this tether.
func hotCheck(opts doctorOptions, add func(status, name, format string, args ...any)) {
	self, err := opts.Executable()
	if err != nil {
		add("warn", "tether-hot", "cannot find this binary's path: %v", err)
		return
	}
	path := hot.Sibling(self)
	if path == self {
		add("warn", "tether-hot", "%s is missing — hooks, prompt and completion run tether instead, several times slower to start; reinstall (./install.sh, or go install ./cmd/...)",
			filepath.Join(filepath.Dir(self), hot.Name))
		return
	}
	version, err := opts.HotVersion(path)
	want := hot.Name + " version " + opts.Version
	switch {
	case err != nil:
		add("fail", "tether-hot", "%s does not run: %v — reinstall (./install.sh)", path, err)
	case version != want:
		add("fail", "tether-hot", "%s says %q, this tether is %s — reinstall both (./install.sh)", path, version, opts.Version)
	default:
		add("ok", "tether-hot", "%s (%s)", path, opts.Version)
	}
}

// hotVersion runs `PATH --version` and returns its first line.
func hotVersion(path string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}
