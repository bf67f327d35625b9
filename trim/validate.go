package trim

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tether-dev/tether/agent/claude"

	"github.com/tidwall/gjson"
)

// ValidationError says which line of a transcript breaks which rule.
type ValidationError struct {
	Line int
	Msg  string
}

func (e *ValidationError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

type vnode struct {
	line      int
	parent    string
	sidechain bool
	boundary  bool
	summary   bool
	logical   string
}

// Validate checks a Claude Code transcript independently of the trimmer
// that wrote it, reading it once with memory bounded by its largest line
// plus a few bytes per record:
//
//   - every line is a JSON object;
//   - uuids are unique and every parentUuid names a record in the file or is null;
//   - a main-chain record never descends from a sidechain record;
//   - every tool_use id has exactly one tool_result after it, and every
//     tool_result a tool_use before it;
//   - a compact_boundary is a root, its logicalParentUuid resolves (or is
//     null), and every isCompactSummary record descends from a boundary;
//   - the chain from the newest main-chain leaf reaches a root without a cycle.
func Validate(r io.Reader) error {
	lr := newLineReader(r)
	nodes := map[string]*vnode{}
	var order []string
	hasChild := map[string]bool{}
	useLine := map[string]int{}   // tool_use id -> line
	resolved := map[string]bool{} // tool_use id -> has its tool_result
	var summaries []string
	for {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n := lr.line
		if !gjson.ValidBytes(line) {
			return &ValidationError{n, "not valid JSON"}
		}
		v := gjson.Parse(transient(line))
		if !v.IsObject() {
			return &ValidationError{n, "not a JSON object"}
		}
		typ := v.Get("type").Str
		if content := v.Get("message.content"); content.IsArray() && (typ == "user" || typ == "assistant") {
			var verr error
			content.ForEach(func(_, b gjson.Result) bool {
				switch b.Get("type").Str {
				case "tool_use":
					if typ != "assistant" {
						return true
					}
					id := strings.Clone(b.Get("id").Str)
					if _, dup := useLine[id]; dup {
						verr = &ValidationError{n, fmt.Sprintf("tool_use id %q used twice (first on line %d)", id, useLine[id])}
						return false
					}
					useLine[id] = n
				case "tool_result":
					if typ != "user" {
						return true
					}
					id := strings.Clone(b.Get("tool_use_id").Str)
					if _, ok := useLine[id]; !ok {
						verr = &ValidationError{n, fmt.Sprintf("tool_result for %q has no tool_use before it", id)}
						return false
					}
					if resolved[id] {
						verr = &ValidationError{n, fmt.Sprintf("second tool_result for %q", id)}
						return false
					}
					resolved[id] = true
				}
				return true
			})
			if verr != nil {
				return verr
			}
		}
		u := v.Get("uuid")
		if u.Type != gjson.String {
			continue
		}
		id := strings.Clone(u.Str)
		if id == "" {
			return &ValidationError{n, "empty uuid"}
		}
		if old, dup := nodes[id]; dup {
			return &ValidationError{n, fmt.Sprintf("duplicate uuid %q (first on line %d)", id, old.line)}
		}
		p := v.Get("parentUuid")
		if p.Exists() && p.Type != gjson.Null && p.Type != gjson.String {
			return &ValidationError{n, "parentUuid is neither a string nor null"}
		}
		node := &vnode{line: n, parent: strings.Clone(p.Str), sidechain: v.Get("isSidechain").Type == gjson.True,
			summary: v.Get(claude.KeyIsCompactSummary).Type == gjson.True}
		if typ == claude.TypeSystem && v.Get(claude.KeySubtype).Str == claude.SubtypeCompactBoundary {
			node.boundary = true
			node.logical = strings.Clone(v.Get("logicalParentUuid").Str)
			if node.parent != "" {
				return &ValidationError{n, claude.SubtypeCompactBoundary + " with a parentUuid (it must be a root)"}
			}
		}
		if node.summary {
			summaries = append(summaries, id)
		}
		nodes[id] = node
		order = append(order, id)
		if node.parent != "" {
			hasChild[node.parent] = true
		}
	}
	for id, line := range useLine {
		if !resolved[id] {
			return &ValidationError{line, fmt.Sprintf("tool_use %q has no tool_result after it", id)}
		}
	}
	for _, id := range order {
		nd := nodes[id]
		if nd.parent != "" {
			pn, ok := nodes[nd.parent]
			if !ok {
				return &ValidationError{nd.line, fmt.Sprintf("parentUuid %q is not in the file", nd.parent)}
			}
			if !nd.sidechain && pn.sidechain {
				return &ValidationError{nd.line, "main-chain record whose parent is a sidechain record"}
			}
		}
		if nd.logical != "" {
			if _, ok := nodes[nd.logical]; !ok {
				return &ValidationError{nd.line, fmt.Sprintf("%s logicalParentUuid %q is not in the file", claude.SubtypeCompactBoundary, nd.logical)}
			}
		}
	}
	// Every chain must end at a root: walk each unvisited record up its
	// parents, marking the path, so a cycle is found in linear time.
	state := make(map[string]uint8, len(nodes)) // 1 on the current path, 2 done
	for _, id := range order {
		var path []string
		cur := id
		for cur != "" && state[cur] == 0 {
			state[cur] = 1
			path = append(path, cur)
			cur = nodes[cur].parent
		}
		if cur != "" && state[cur] == 1 {
			return &ValidationError{nodes[cur].line, "parentUuid cycle"}
		}
		for _, p := range path {
			state[p] = 2
		}
	}
	rootOf := func(id string) (*vnode, error) {
		nd := nodes[id]
		for steps := 0; nd.parent != ""; steps++ {
			if steps > len(nodes) {
				return nil, &ValidationError{nodes[id].line, "parentUuid cycle"}
			}
			nd = nodes[nd.parent]
		}
		return nd, nil
	}
	for _, id := range summaries {
		root, err := rootOf(id)
		if err != nil {
			return err
		}
		if !root.boundary {
			return &ValidationError{nodes[id].line, "compact summary that does not descend from a " + claude.SubtypeCompactBoundary}
		}
	}
	// The newest main-chain leaf is what a resume continues from.
	for i := len(order) - 1; i >= 0; i-- {
		nd := nodes[order[i]]
		if nd.sidechain || hasChild[order[i]] {
			continue
		}
		if _, err := rootOf(order[i]); err != nil {
			return err
		}
		break
	}
	return nil
}
