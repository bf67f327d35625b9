package archtest

import (
	"slices"
	"strings"
	"testing"
)

// features are the packages that see the agents only through the
// agent.Agent interface: none may import a concrete agent package.
var features = []string{"catalog", "hooks", "wrap", "picker", "searchindex", "summarize", "archive", "state"}

// sharedAgentPackages are the packages under agent/ that are not one
// agent: the interface (and the session types), the JSON-lines helpers
// every agent uses and the machinery the agents' session readers share
// (their cache, evidence, bounded reads).
var sharedAgentPackages = []string{"agent", "agent/jsonl", "agent/filecache", "agent/evidence", "agent/scan"}

// agentPending are the imports of concrete agents by features that remain,
// each with what removes it. The test fails when one disappears, so the
// list only shrinks.
var agentPending = map[string]string{}

// concreteAgent reports whether pkg is one agent's package (agent/claude,
// agent/codex, …) or inside one.
func concreteAgent(pkg string) bool {
	return under(pkg, "agent") && !slices.Contains(sharedAgentPackages, pkg)
}

// agentLeaks lists every import of a concrete agent by a feature package
// (or a package inside one).
func agentLeaks(imports map[string][]string) map[string]bool {
	out := map[string]bool{}
	for pkg, imps := range imports {
		if !slices.ContainsFunc(features, func(f string) bool { return under(pkg, f) }) {
			continue
		}
		for _, imp := range imps {
			if concreteAgent(imp) {
				out[pkg+" -> "+imp] = true
			}
		}
	}
	return out
}

func TestFeaturesSeeAgentsThroughTheInterface(t *testing.T) {
	got := agentLeaks(moduleImports(t))
	for edge := range got {
		if _, ok := agentPending[edge]; !ok {
			t.Errorf("feature imports a concrete agent: %s (take an agent.Agent; the registry is built in cmd/)", edge)
		}
	}
	for edge, plan := range agentPending {
		if !got[edge] {
			t.Errorf("%s no longer exists: delete it from agentPending (%s)", edge, plan)
		}
	}
}

func TestAgentGuardCatchesLeaks(t *testing.T) {
	planted := map[string][]string{
		"wrap":           {"agent/claude", "agent", "agent/jsonl"},
		"catalog/newsub": {"agent/opencode"},
		"trim":           {"agent/claude"}, // trim is Claude Code's transcript surgery, not a feature over all agents
		"cmd/tether":     {"agent/codex"},  // the command layer builds the registry
	}
	got := agentLeaks(planted)
	want := []string{"catalog/newsub -> agent/opencode", "wrap -> agent/claude"}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("agent leaks %q, want %q", keys, want)
	}
}
