package trim

import (
	"errors"
	"fmt"
	"io"

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

// vnode is what the validator keeps of a record with a uuid: 12 bytes,
// its uuid once in an arena and in the index.
type vnode struct {
	line      int32
	parent    int32 // index of the parent; -1 null; pendingParent: named later in the file
	sidechain bool
	boundary  bool
	summary   bool
}

const pendingParent = -2

// vstate is the validator's record of a transcript.
type vstate struct {
	index     map[string]int32 // uuid -> node
	nodes     []vnode
	pending   map[int32]string // parentUuids not seen yet when their record was read
	logical   map[int32]string // a compact boundary's logicalParentUuid
	tools     map[string]int32 // tool_use id -> its line; negated once its tool_result is seen
	summaries []int32
	strs      arena
}

// Validate checks a Claude Code transcript independently of the trimmer
// that wrote it, reading it once with memory bounded by its largest line
// plus a few dozen bytes per record:
//
//   - every line is a JSON object;
//   - uuids are unique and every parentUuid names a record in the file or is null;
//   - a main-chain record never descends from a sidechain record;
//   - every tool_use id has exactly one tool_result after it, and every
//     tool_result a tool_use before it;
//   - a compact_boundary is a root, its logicalParentUuid resolves (or is
//     null), and every isCompactSummary record descends from a boundary;
//   - the chain from the newest main-chain leaf reaches a root without a cycle.
//
// It parses with gjson, not with the scan's readers (agent/jsonl), so a
// bug in those cannot vouch for its own output.
func Validate(r io.Reader) error {
	_, err := validate(r, nil)
	return err
}

// validate is Validate reading through buf (the trim's line buffer, so a
// trim holds one buffer of the longest line); it returns the buffer.
func validate(r io.Reader, buf []byte) ([]byte, error) {
	lr := newLineReaderBuf(r, buf)
	st := &vstate{index: map[string]int32{}, pending: map[int32]string{}, logical: map[int32]string{}, tools: map[string]int32{}}
	for {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return lr.take(), err
		}
		if err := st.read(line, int32(lr.line)); err != nil {
			return lr.take(), err
		}
	}
	return lr.take(), st.check()
}

// read takes in one line.
func (st *vstate) read(line []byte, n int32) error {
	if !gjson.ValidBytes(line) {
		return &ValidationError{int(n), "not valid JSON"}
	}
	v := gjson.Parse(transient(line))
	if !v.IsObject() {
		return &ValidationError{int(n), "not a JSON object"}
	}
	env := envelopeOf(v)
	typ := env.typ.Str
	if typ == "user" || typ == "assistant" {
		if content := v.Get("message.content"); content.IsArray() {
			if err := st.readTools(content, typ, n); err != nil {
				return err
			}
		}
	}
	u := env.uuid
	if u.Type != gjson.String {
		return nil
	}
	id := u.Str
	if id == "" {
		return &ValidationError{int(n), "empty uuid"}
	}
	if old, dup := st.index[id]; dup {
		return &ValidationError{int(n), fmt.Sprintf("duplicate uuid %q (first on line %d)", id, st.nodes[old].line)}
	}
	p := env.parent
	if p.Exists() && p.Type != gjson.Null && p.Type != gjson.String {
		return &ValidationError{int(n), "parentUuid is neither a string nor null"}
	}
	i := int32(len(st.nodes))
	node := vnode{line: n, parent: -1, sidechain: env.sidechain.Type == gjson.True, summary: env.summary.Type == gjson.True}
	if p.Str != "" {
		if j, ok := st.index[p.Str]; ok {
			node.parent = j
		} else {
			node.parent = pendingParent
			st.pending[i] = st.strs.clone(p.Str)
		}
	}
	if typ == claude.TypeSystem && env.subtype.Str == claude.SubtypeCompactBoundary {
		node.boundary = true
		if l := env.logical.Str; l != "" {
			st.logical[i] = st.strs.clone(l)
		}
		if p.Str != "" {
			return &ValidationError{int(n), claude.SubtypeCompactBoundary + " with a parentUuid (it must be a root)"}
		}
	}
	if node.summary {
		st.summaries = append(st.summaries, i)
	}
	st.index[st.strs.clone(id)] = i
	st.nodes = append(st.nodes, node)
	return nil
}

// venvelope is the top-level values the validator reads.
type venvelope struct {
	typ, uuid, parent, sidechain, summary, subtype, logical gjson.Result
}

// envelopeOf reads v's top level once (gjson's ForEach), taking the first
// of repeated keys as v.Get(key) does: a Get per key re-walked the line,
// skipping its multi-megabyte message up to seven times.
func envelopeOf(v gjson.Result) venvelope {
	var e venvelope
	v.ForEach(func(k, val gjson.Result) bool {
		var f *gjson.Result
		switch k.Str {
		case "type":
			f = &e.typ
		case "uuid":
			f = &e.uuid
		case "parentUuid":
			f = &e.parent
		case "isSidechain":
			f = &e.sidechain
		case claude.KeyIsCompactSummary:
			f = &e.summary
		case claude.KeySubtype:
			f = &e.subtype
		case "logicalParentUuid":
			f = &e.logical
		}
		if f != nil && !f.Exists() {
			*f = val
		}
		return true
	})
	return e
}

// readTools pairs the tool blocks of a message's content.
func (st *vstate) readTools(content gjson.Result, typ string, n int32) error {
	var verr error
	content.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "tool_use":
			if typ != "assistant" {
				return true
			}
			id := b.Get("id").Str
			if first, dup := st.tools[id]; dup {
				verr = &ValidationError{int(n), fmt.Sprintf("tool_use id %q used twice (first on line %d)", id, abs(first))}
				return false
			}
			st.tools[st.strs.clone(id)] = n
		case "tool_result":
			if typ != "user" {
				return true
			}
			id := b.Get("tool_use_id").Str
			use, ok := st.tools[id]
			switch {
			case !ok:
				verr = &ValidationError{int(n), fmt.Sprintf("tool_result for %q has no tool_use before it", id)}
				return false
			case use < 0:
				verr = &ValidationError{int(n), fmt.Sprintf("second tool_result for %q", id)}
				return false
			}
			st.tools[id] = -use
		}
		return true
	})
	return verr
}

func abs(n int32) int32 {
	if n < 0 {
		return -n
	}
	return n
}

// check applies the rules that need the whole file.
func (st *vstate) check() error {
	for id, line := range st.tools {
		if line > 0 {
			return &ValidationError{int(line), fmt.Sprintf("tool_use %q has no tool_result after it", id)}
		}
	}
	nodes := st.nodes
	hasChild := make([]bool, len(nodes))
	for i := range nodes {
		nd := &nodes[i]
		if nd.parent == pendingParent {
			p := st.pending[int32(i)]
			j, ok := st.index[p]
			if !ok {
				return &ValidationError{int(nd.line), fmt.Sprintf("parentUuid %q is not in the file", p)}
			}
			nd.parent = j
		}
		if nd.parent >= 0 {
			hasChild[nd.parent] = true
			if !nd.sidechain && nodes[nd.parent].sidechain {
				return &ValidationError{int(nd.line), "main-chain record whose parent is a sidechain record"}
			}
		}
		if l, ok := st.logical[int32(i)]; ok {
			if _, ok := st.index[l]; !ok {
				return &ValidationError{int(nd.line), fmt.Sprintf("%s logicalParentUuid %q is not in the file", claude.SubtypeCompactBoundary, l)}
			}
		}
	}
	// Every chain must end at a root: walk each unvisited record up its
	// parents, marking the path, so a cycle is found in linear time.
	state := make([]uint8, len(nodes)) // 1 on the current path, 2 done
	var path []int32
	for i := range nodes {
		path = path[:0]
		cur := int32(i)
		for cur >= 0 && state[cur] == 0 {
			state[cur] = 1
			path = append(path, cur)
			cur = nodes[cur].parent
		}
		if cur >= 0 && state[cur] == 1 {
			return &ValidationError{int(nodes[cur].line), "parentUuid cycle"}
		}
		for _, p := range path {
			state[p] = 2
		}
	}
	rootOf := func(i int32) vnode {
		nd := nodes[i]
		for nd.parent >= 0 {
			nd = nodes[nd.parent]
		}
		return nd
	}
	for _, i := range st.summaries {
		if !rootOf(i).boundary {
			return &ValidationError{int(nodes[i].line), "compact summary that does not descend from a " + claude.SubtypeCompactBoundary}
		}
	}
	// The newest main-chain leaf is what a resume continues from; with no
	// cycle (above) its chain reaches a root.
	return nil
}
