package archtest

import (
	"flag"
	"fmt"
	"go/doc"
	"go/parser"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/architecture.md's package map from ranks")

// ranks is every package of the module with its rank: an import may only
// go to a package of a lower rank. A package missing here fails
// TestEveryPackageRanked, so a new package is placed on purpose.
//
// 0–3 ground (internal/ helpers that know no feature, and identity), 4–5
// the agents' formats, 6–9 features, 10 the hot commands both binaries
// share (cmd/internal/hot), 11 the binaries with their command trees. Test
// kits and development mains are ranked too but never shipped (testKits).
var ranks = map[string]int{
	// ground: know nothing of tether's features
	"internal/atomicfile": 0, "internal/bincodec": 0, "internal/config": 1, "internal/exitcode": 0,
	"internal/gauge": 0, "internal/iostreams": 0, "internal/locations": 0, "internal/procfs": 0,
	"internal/table": 0, "internal/termsafe": 0, "identity": 0, "internal/todayspend": 1,
	"internal/osfs":              0,
	"internal/suggest":           0,
	"internal/shquote":           1,
	"internal/safeio":            2,
	"internal/config/configfile": 3,
	// the agents: the only code that knows their files and formats
	"agent/jsonl": 3, "agent": 4,
	"agent/claude": 5, "agent/codex": 5, "agent/opencode": 5,
	// what the agents' session readers share, and the readers (only
	// tether links them: agent.Lister)
	"agent/filecache": 5, "agent/evidence": 5, "agent/scan": 6,
	"agent/claude/claudesessions": 7, "agent/codex/codexsessions": 7, "agent/opencode/opencodesessions": 7,
	// OpenCode's HTTP API (net/http: tether only, for trim --compact)
	"agent/opencode/opencodeserve": 6,
	"internal/eventlog":            5, // pending: takes the harness names from agent
	// features
	"state": 6, "archive": 6, "trim": 6, "shellinit": 6, "shellinit/compindex": 6,
	"archive/zstdcodec": 7, "hooks": 7, "wrap": 7,
	"hooks/codextrust": 8, "catalog": 8, "usage": 6,
	"picker": 9, "picker/snapshot": 9, "searchindex": 9, "summarize": 9, "catalog/schemagen": 9,
	// the command layer: the shared hot commands, the binaries
	"cmd/internal/hot": 10, "cmd/tether": 11, "cmd/tether-hot": 11,
	// test kits and development mains (never shipped)
	"internal/testkit/fakeapi": 0, "internal/testkit/testutil": 0, "internal/testkit/claudetest": 0,
	"e2e/harness": 1, "internal/testkit/corpus": 6, "internal/testkit/sessiontest": 9,
	"tools/benchrun": 0, "tools/emptygo": 0, "tools/genpricing": 0, "tools/ftsfloor": 0, "tools/gowrap": 0, "tools/scanfloor": 0,
	"tools/gencorpus": 7, "tools/schemagen": 10,
}

// testKits are the trees that only tests and development tools use: no
// shipped binary may link them.
var testKits = []string{"internal/testkit", "internal/archtest", "tools", "e2e", "catalog/schemagen"}

// shipped are the binaries install.sh installs.
var shipped = []string{"cmd/tether", "cmd/tether-hot"}

// groundPending are the imports of ground packages (internal/, but for the
// test kits) that still reach a feature or an agent,
// each with what removes it. The test fails when one disappears, so the
// list only shrinks.
var groundPending = map[string]string{
	"internal/eventlog -> agent": "the harness names move to the log's callers or a ground package",
}

func under(pkg, tree string) bool { return pkg == tree || strings.HasPrefix(pkg, tree+"/") }

// rankViolations lists every import that does not go down, and every
// package without a rank.
func rankViolations(imports map[string][]string, ranks map[string]int) []string {
	var out []string
	for pkg, imps := range imports {
		r, ok := ranks[pkg]
		if !ok {
			out = append(out, pkg+": no rank (add it to ranks in internal/archtest)")
			continue
		}
		for _, imp := range imps {
			if ri, ok := ranks[imp]; ok && ri >= r {
				out = append(out, fmt.Sprintf("%s (rank %d) imports %s (rank %d): imports only go down", pkg, r, imp, ri))
			}
		}
	}
	sort.Strings(out)
	return out
}

// groundViolations lists imports from ground packages into anything that
// is not ground.
func groundViolations(imports map[string][]string) map[string]bool {
	ground := func(p string) bool {
		return under(p, "internal") && !slices.ContainsFunc(testKits, func(k string) bool { return under(p, k) })
	}
	out := map[string]bool{}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if ground(pkg) && !ground(imp) {
				out[pkg+" -> "+imp] = true
			}
		}
	}
	return out
}

// kitLeaks lists the test kits a shipped binary links, with the path.
func kitLeaks(imports map[string][]string) []string {
	var out []string
	for _, bin := range shipped {
		seen := map[string]string{bin: bin}
		queue := []string{bin}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, imp := range imports[p] {
				if _, ok := seen[imp]; ok {
					continue
				}
				seen[imp] = seen[p] + " -> " + imp
				if slices.ContainsFunc(testKits, func(k string) bool { return under(imp, k) }) {
					out = append(out, seen[imp])
				}
				queue = append(queue, imp)
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestLayeringByRank(t *testing.T) {
	for _, v := range rankViolations(moduleImports(t), ranks) {
		t.Error(v)
	}
	for pkg := range ranks {
		if _, err := os.Stat(filepath.Join(root(t), pkg)); err != nil {
			t.Errorf("ranks names %s, which does not exist: delete it", pkg)
		}
	}
}

func TestGroundKnowsNoFeature(t *testing.T) {
	got := groundViolations(moduleImports(t))
	for edge := range got {
		if _, ok := groundPending[edge]; !ok {
			t.Errorf("ground package imports a feature or agent: %s (internal/ helpers know nothing of tether's features)", edge)
		}
	}
	for edge, plan := range groundPending {
		if !got[edge] {
			t.Errorf("%s no longer exists: delete it from groundPending (%s)", edge, plan)
		}
	}
}

func TestShippedBinariesLinkNoTestKit(t *testing.T) {
	for _, leak := range kitLeaks(moduleImports(t)) {
		t.Errorf("a shipped binary links a test kit: %s", leak)
	}
}

// TestLayeringCatchesViolations plants wrong-way imports and an unranked
// package: the guards are not vacuous.
func TestLayeringCatchesViolations(t *testing.T) {
	planted := map[string][]string{
		"state":    {"catalog"},
		"archive":  {"hooks"},
		"identity": {"archive"},
		"hooks":    {"picker"},
		"newpkg":   {"internal/termsafe"},
		"catalog":  {"agent/claude"}, // fine: goes down
	}
	got := rankViolations(planted, ranks)
	if len(got) != 5 {
		t.Errorf("rank violations %q, want exactly five (four wrong-way imports, one unranked package)", got)
	}
	if g := groundViolations(map[string][]string{"internal/termsafe": {"catalog"}, "cmd/internal/hot": {"catalog"}}); len(g) != 1 || !g["internal/termsafe -> catalog"] {
		t.Errorf("ground violations %v, want internal/termsafe -> catalog only", g)
	}
	leaks := kitLeaks(map[string][]string{"cmd/tether": {"cmd/internal/hot"}, "cmd/internal/hot": {"internal/testkit/fakeapi"}})
	if len(leaks) != 1 {
		t.Errorf("kit leaks %q, want one", leaks)
	}
}

// packageDocs is the first sentence of each package's doc comment.
func packageDocs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var p doc.Package
	files := sourceFiles(t, parser.ParseComments|parser.PackageClauseOnly)
	rels := slices.Sorted(maps.Keys(files)) // the first file with a doc comment, by name
	for _, rel := range rels {
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if f := files[rel]; f.Doc != nil && out[pkg] == "" {
			out[pkg] = p.Synopsis(f.Doc.Text())
		}
	}
	return out
}

// architectureMap is docs/architecture.md's package table: every shipped
// package by rank, highest first, with its synopsis.
func architectureMap(t *testing.T) string {
	docs := packageDocs(t)
	var pkgs []string
	for p := range ranks {
		if !slices.ContainsFunc(testKits, func(k string) bool { return under(p, k) }) {
			pkgs = append(pkgs, p)
		}
	}
	sort.Slice(pkgs, func(i, j int) bool {
		if ranks[pkgs[i]] != ranks[pkgs[j]] {
			return ranks[pkgs[i]] > ranks[pkgs[j]]
		}
		return pkgs[i] < pkgs[j]
	})
	var b strings.Builder
	b.WriteString("| rank | package | what it is |\n| --- | --- | --- |\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", ranks[p], p, strings.ReplaceAll(docs[p], "|", "\\|"))
	}
	return b.String()
}

// TestArchitectureDoc: docs/architecture.md's map is generated from ranks
// and every package has a doc comment to describe it.
func TestArchitectureDoc(t *testing.T) {
	docs := packageDocs(t)
	for p := range ranks {
		if _, err := os.Stat(filepath.Join(root(t), p)); err == nil && docs[p] == "" {
			t.Errorf("%s has no package doc comment", p)
		}
	}
	path := filepath.Join(root(t), "docs", "architecture.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- ranks:begin -->\n", "<!-- ranks:end -->"
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q block", path, begin, end)
	}
	want := architectureMap(t)
	if got := s[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s: the package map differs from ranks; run go test ./internal/archtest -run TestArchitectureDoc -update\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// moduleImports maps each package (by its path in the module) to the
// module packages its non-test files import.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for rel, f := range sourceFiles(t, parser.ImportsOnly) {
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if strings.HasPrefix(p, module) {
				out[pkg] = append(out[pkg], strings.TrimPrefix(p, module))
			}
		}
	}
	return out
}
