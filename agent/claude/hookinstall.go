package claude

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tether-dev/tether/agent"
)

var _ agent.HookInstaller = (*Agent)(nil)

// Events tether installs. Claude Code 2.0.x silently ignores every hook
// when settings.json names an event it does not know, so older versions
// get only the events observed to fire in 2.0.77.
var (
	ClassicHookEvents = []string{"SessionStart", "Stop", "SubagentStop", "SessionEnd"}
	HookEvents        = []string{"SessionStart", "Stop", "StopFailure", "PreCompact", "PostCompact",
		"SubagentStart", "SubagentStop", "SessionEnd"}
)

// FullEventsSince is the oldest Claude Code version seen firing every event
// in HookEvents; older ones get ClassicHookEvents.
const FullEventsSince = "2.1.332"

// HookScopes implements agent.HookInstaller: user (~/.claude/settings.json),
// project (.claude/settings.json, shared) and local
// (.claude/settings.local.json).
func (*Agent) HookScopes() []string { return []string{"user", "project", "local"} }

// HookSettings implements agent.HookInstaller.
func (a *Agent) HookSettings(scope, project string) string {
	switch scope {
	case "project":
		return filepath.Join(project, ".claude", "settings.json")
	case "local":
		return filepath.Join(project, ".claude", "settings.local.json")
	}
	return filepath.Join(a.dir, "settings.json")
}

// HookEvents implements agent.HookInstaller: every event for Claude Code
// FullEventsSince and later, the classic ones otherwise (and when the
// version is not known: every version knows them).
func (*Agent) HookEvents(version func() string) agent.HookEvents {
	v := version()
	he := agent.HookEvents{Events: EventsFor(v), All: HookEvents}
	switch {
	case v == "":
		he.Reduced = "installed only the events every Claude Code version knows (" + strings.Join(he.Events, ", ") + ")"
	case len(he.Events) < len(he.All):
		he.Reduced = "Claude Code " + strings.TrimSpace(v) + ": installed only " + strings.Join(he.Events, ", ") +
			" (versions before " + FullEventsSince + " ignore every hook when one event is unknown to them)"
	}
	return he
}

// HookArgs implements agent.HookInstaller.
func (*Agent) HookArgs() string { return "hook" }

// EventsFor returns the events to install for a Claude Code version
// string ("" or unparsable: the classic set, which every version knows).
func EventsFor(version string) []string {
	v, ok := ParseVersion(version)
	full, _ := ParseVersion(FullEventsSince)
	if !ok || versionLess(v, full) {
		return ClassicHookEvents
	}
	return HookEvents
}

var versionREOnce struct {
	sync.Once
	re *regexp.Regexp
}

// versionRE is compiled on first use, in a plain function rather than a
// package-level sync.OnceValue: a closure built at package init keeps
// regexp reachable in every binary linking this package (tether-hot), and
// with it the Unicode tables' initialisers.
func versionRE() *regexp.Regexp {
	versionREOnce.Do(func() { versionREOnce.re = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`) })
	return versionREOnce.re
}

// ParseVersion finds a x.y.z version in s (e.g. "2.1.332 (Claude Code)").
func ParseVersion(s string) ([3]int, bool) {
	m := versionRE().FindStringSubmatch(s)
	if m == nil {
		return [3]int{}, false
	}
	var v [3]int
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return v, true
}

func versionLess(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
