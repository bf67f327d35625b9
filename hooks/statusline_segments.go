package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/internal/todayspend"
	"github.com/tether-dev/tether/state"
)

// StatusOptions say how the statusLine is drawn.
type StatusOptions struct {
	Color bool
	// Thresholds colour the context gauge; zero means gauge.Default.
	Thresholds gauge.Thresholds
	// Segments are drawn in order; empty means DefaultSegments.
	Segments []string
	// TodayFile is where the last usage count left today's spend (see
	// internal/todayspend); Today is the local date to show it for.
	TodayFile, Today string
}

// Segment names for [statusline] segments in the config.
const (
	SegModel   = "model"
	SegContext = "context"
	SegBranch  = "branch"
	SegCost    = "cost"
	// SegToday is today's spend across sessions, as tether usage last
	// counted it (never counted here: one small file is read).
	SegToday = "today"
)

// DefaultSegments is the statusLine without configuration.
var DefaultSegments = []string{SegModel, SegContext}

func renderSegment(name string, in agent.StatusInput, st state.Session, o StatusOptions) string {
	switch name {
	case SegModel:
		return cell(firstNonEmpty(in.ModelName, in.ModelID, st.Model, "claude"))
	case SegContext:
		return renderContext(st, o)
	case SegBranch:
		if b := GitBranch(firstNonEmpty(in.Cwd, in.ProjectDir)); b != "" {
			return "⎇ " + cell(b)
		}
	case SegCost:
		if in.HasCost {
			return fmt.Sprintf("$%.2f", in.CostUSD)
		}
	case SegToday:
		if o.TodayFile == "" {
			return ""
		}
		if sp, ok := todayspend.Read(o.TodayFile, o.Today); ok {
			return fmt.Sprintf("$%.2f today", sp.CostUSD)
		}
	}
	return ""
}

// cell is where a value from the payload or a file is made safe to print:
// no control character reaches the terminal (termsafe escapes it).
func cell(s string) string { return termsafe.String(s) }

// GitBranch is the branch checked out in the repository holding dir (a
// short commit for a detached HEAD), or "" outside a repository. It reads
// .git/HEAD (following a worktree's "gitdir:" file) and runs no git: the
// statusLine runs after every message.
func GitBranch(dir string) string {
	for dir != "" {
		gitPath := filepath.Join(dir, ".git")
		if fi, err := os.Stat(gitPath); err == nil {
			if !fi.IsDir() {
				gitPath = gitDirFromFile(gitPath, dir)
			}
			return headBranch(filepath.Join(gitPath, "HEAD"))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

func gitDirFromFile(path, dir string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	return gd
}

func headBranch(path string) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 4096 {
		return ""
	}
	data = bytes.TrimSpace(data)
	if ref, ok := bytes.CutPrefix(data, []byte("ref: ")); ok {
		return strings.TrimPrefix(string(ref), "refs/heads/")
	}
	if len(data) >= 7 {
		return string(data[:7])
	}
	return ""
}
