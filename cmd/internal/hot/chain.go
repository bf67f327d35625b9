package hot

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/state"
)

// envChained marks a statusLine command tether runs, so a chain that
// leads back to 'tether statusline' does not run itself again.
const envChained = "TETHER_STATUSLINE_CHAINED"

// maxChainOutput bounds what is kept of the chained command's output.
const maxChainOutput = 64 << 10

// chainCommand is the statusLine command to run before tether's own: the
// configured one, else (with chain = true) the user's statusLine that a
// forced 'hooks install --statusline' replaced, as recorded for the user
// settings (else any settings file). "" when there is none.
func chainCommand(cfg config.StatusLine, stateDir, claudeDir string, getenv func(string) string) string {
	if getenv(envChained) != "" {
		return ""
	}
	if cfg.Command != "" {
		return cfg.Command
	}
	if !cfg.Chain {
		return ""
	}
	rec, err := state.LoadHooksRecord(stateDir)
	if err != nil {
		return ""
	}
	user := state.HooksRecordKey(filepath.Join(claudeDir, "settings.json"))
	keys := []string{user}
	for k := range rec.Files {
		if k != user {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys[1:])
	for _, k := range keys {
		if fr := rec.Files[k]; fr != nil && fr.UserStatusLine != "" {
			if c := gjson.Get(fr.UserStatusLine, "command").String(); c != "" {
				return c
			}
		}
	}
	return ""
}

// runChained runs command with sh -c, the payload on stdin, for at most
// timeout. Its process group is killed at the deadline (npx and friends
// start children). Any failure is returned; the caller fails open.
func runChained(ctx context.Context, command string, stdin []byte, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin = bytes.NewReader(stdin)
	out := &capped{max: maxChainOutput}
	cmd.Stdout = out
	cmd.Env = append(os.Environ(), envChained+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return out.b.String(), nil
}

// besides puts tether's segment after the first line of the chained
// output; the other lines follow unchanged.
func besides(chained, ours string) string {
	chained = strings.TrimRight(chained, "\r\n")
	if strings.TrimSpace(chained) == "" {
		return ours
	}
	first, rest, _ := strings.Cut(chained, "\n")
	out := first + " │ " + ours
	if rest != "" {
		out += "\n" + rest
	}
	return out
}

// capped is a writer that keeps at most max bytes and drops the rest.
type capped struct {
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
