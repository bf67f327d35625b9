package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/cmd/internal/hot"
)

// retention is Claude Code's effective cleanupPeriodDays and the scope
// that set it.
type retention struct {
	days  int
	scope string // "" for the default
	notes []string
}

// claudeRetention reads cleanupPeriodDays from every settings scope; the
// highest-precedence scope that sets it wins. Unreadable scopes are noted
// (a managed file may be root-only), never fatal.
func claudeRetention(configDir, projectRoot string, readFile func(string) ([]byte, error)) retention {
	r := retention{days: claude.DefaultCleanupPeriodDays}
	for _, s := range claude.SettingsScopes(configDir, projectRoot) {
		data, err := readFile(s.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			r.notes = append(r.notes, fmt.Sprintf("%s settings unreadable (%v)", s.Name, err))
			continue
		}
		days, ok, err := claude.CleanupPeriodDays(data)
		if err != nil {
			r.notes = append(r.notes, fmt.Sprintf("%s settings %s are not JSON", s.Name, s.Path))
			continue
		}
		if ok {
			r.days, r.scope = days, s.Name+" ("+s.Path+")"
		}
	}
	return r
}

// archiveChecks reports Claude Code's retention and what the archive
// protects. It never changes Claude Code's settings.
func archiveChecks(opts doctorOptions, add func(status, name, format string, args ...any)) {
	r := claudeRetention(opts.Loc.ClaudeDir, opts.Root.Path, os.ReadFile)
	set := "default"
	if r.scope != "" {
		set = "set in " + r.scope
	}
	extra := ""
	if len(r.notes) > 0 {
		extra = "; " + strings.Join(r.notes, "; ")
	}
	if opts.Archive == nil {
		return
	}
	st, enabled, err := opts.Archive()
	if err != nil {
		add("fail", "archive", "%v", err)
		return
	}
	retained := fmt.Sprintf("Claude Code deletes transcripts after %d days (cleanupPeriodDays, %s)%s", r.days, set, extra)
	if !enabled {
		if r.days < 365 {
			add("warn", "retention", "%s and tether's archive is disabled: older sessions will be lost — set [archive] enabled = true in %s (or raise cleanupPeriodDays yourself)",
				retained, opts.Loc.ConfigFile)
		} else {
			add("ok", "retention", "%s; tether's archive is disabled", retained)
		}
		return
	}
	if err := probeWritable(st.Dir); err != nil {
		add("fail", "archive", "%s is not writable: %v — transcripts are not being kept", st.Dir, err)
		return
	}
	ix, err := st.BuildIndex(hot.HarnessRoots(opts.Loc), nil, time.Now())
	if err != nil {
		add("warn", "archive", "cannot read %s: %v", st.Dir, err)
		return
	}
	only := 0
	for _, e := range ix.Entries {
		if e.LiveGone {
			only++
		}
	}
	add("ok", "retention", "%s; tether's archive protects %d %s (%d only in the archive; %s, mode %s)",
		retained, len(ix.Entries), plural(len(ix.Entries), "session", "sessions"), only, st.Dir, modeName(st))
}

func modeName(st *archive.Store) string {
	if st.Mode == "" {
		return archive.ModeLink
	}
	return st.Mode
}
