// Package harness drives the real Claude Code, Codex and OpenCode CLIs against the
// offline fake model API (internal/testkit/fakeapi) for end-to-end tests.
//
// CLIs installs the pinned CLI versions once per test binary (through
// scripts/e2e-clis.sh); NewEnv makes a throw-away HOME with everything the
// CLIs need to talk to the fake, and runs them there.
package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// The pinned CLI versions installed by scripts/e2e-clis.sh.
const (
	ClaudeVersion    = "2.1.332"
	ClaudeOldVersion = "2.0.77"
	CodexVersion     = "0.171.0"
	OpenCodeVersion  = "1.18.33"
	CCUsageVersion   = "20.0.24"
)

// Paths are the absolute paths of the installed CLI executables, each
// directly executable.
type Paths struct {
	// Claude is Claude Code 2.1.332 (a native binary).
	Claude string
	// ClaudeOld is Claude Code 2.0.77 (node cli.js; needs node on PATH).
	ClaudeOld string
	// Codex is the Codex CLI 0.171.0 (a native binary).
	Codex string
	// OpenCode is OpenCode 1.18.33 (a Bun-compiled native binary).
	OpenCode string
	// CCUsage is ccusage 20.0.24 (a native binary): the reference the
	// usage tests compare tether's counts with.
	CCUsage string
	// ByKey maps the script's keys (claude-2.1.332, claude-2.0.77,
	// codex-0.171.0, opencode-1.18.33) to the paths.
	ByKey map[string]string
}

// NpmMissingMessage is the skip message when npm is not installed.
const NpmMissingMessage = "e2e: npm not found; install Node.js/npm to run the real-CLI suite"

var (
	clisOnce  sync.Once
	clisPaths Paths
	clisSkip  string
	clisErr   error
)

// CLIs returns the paths of the pinned CLIs, installing them the first time
// it is called in a test binary (scripts/e2e-clis.sh; about 30 s the very
// first time, a second or two once installed). Without npm the test is
// skipped, unless CI=true, where any failure is fatal.
func CLIs(t testing.TB) Paths {
	t.Helper()
	clisOnce.Do(func() { clisPaths, clisSkip, clisErr = installCLIs(t) })
	switch {
	case clisSkip != "" && os.Getenv("CI") == "true":
		t.Fatalf("%s (CI=true, so this is fatal)", clisSkip)
	case clisSkip != "":
		t.Skip(clisSkip)
	case clisErr != nil:
		t.Fatalf("e2e: installing the CLIs: %v", clisErr)
	default:
		return clisPaths
	}
	return Paths{}
}

func installCLIs(t testing.TB) (Paths, string, error) {
	if _, err := exec.LookPath("npm"); err != nil {
		return Paths{}, NpmMissingMessage, nil
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		return Paths{}, "", err
	}
	script := filepath.Join(root, "scripts", "e2e-clis.sh")
	t.Logf("e2e: installing/locating the pinned CLIs: bash %s", script)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = root
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return Paths{}, "", err
	}
	if err := cmd.Start(); err != nil {
		return Paths{}, "", fmt.Errorf("start %s: %w", script, err)
	}
	var tail []string
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		t.Logf("e2e-clis.sh: %s", line)
		tail = append(tail, line)
		if len(tail) > 20 {
			tail = tail[1:]
		}
	}
	if err := cmd.Wait(); err != nil {
		return Paths{}, "", fmt.Errorf("%s failed after %v: %w\n%s", script, time.Since(start).Round(time.Millisecond), err, strings.Join(tail, "\n"))
	}
	p := Paths{ByKey: map[string]string{}}
	for _, line := range strings.Split(stdout.String(), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok {
			p.ByKey[k] = v
		}
	}
	p.Claude = p.ByKey["claude-"+ClaudeVersion]
	p.ClaudeOld = p.ByKey["claude-"+ClaudeOldVersion]
	p.Codex = p.ByKey["codex-"+CodexVersion]
	p.OpenCode = p.ByKey["opencode-"+OpenCodeVersion]
	p.CCUsage = p.ByKey["ccusage-"+CCUsageVersion]
	if p.Claude == "" || p.ClaudeOld == "" || p.Codex == "" || p.OpenCode == "" || p.CCUsage == "" {
		return Paths{}, "", fmt.Errorf("%s printed no path for every CLI:\n%s", script, stdout.String())
	}
	t.Logf("e2e: CLIs ready in %v: claude %s=%s, claude %s=%s, codex %s=%s, opencode %s=%s", time.Since(start).Round(time.Millisecond),
		ClaudeVersion, p.Claude, ClaudeOldVersion, p.ClaudeOld, CodexVersion, p.Codex, OpenCodeVersion, p.OpenCode)
	return p, "", nil
}
