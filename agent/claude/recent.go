package claude

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// pathKeys are the tool-input keys that name a file or directory (Read,
// Edit, Write, NotebookEdit, Glob, Grep).
var pathKeys = []string{"file_path", "notebook_path", "path"}

// Recent reads the end of a transcript: the last n main-chain tool calls
// (name and paths only) and the last assistant text, scanning a bounded
// tail backwards.
func Recent(open jsonl.Opener, path string, lim jsonl.TailLimits, n int) (agent.Recent, error) {
	var r agent.Recent
	var rev []agent.Activity // newest first
	_, _, err := jsonl.Tail(open, path, lim, func(line []byte) bool {
		if !bytes.Contains(line, []byte(`"assistant"`)) {
			return false
		}
		rec, ok := ParseRec(string(line))
		if !ok || rec.Type != TypeAssistant || rec.Sidechain || rec.APIError {
			return false
		}
		blocks := rec.Message.Get("content").Array()
		for i := len(blocks) - 1; i >= 0; i-- {
			blk := blocks[i]
			switch blk.Get("type").Str {
			case BlockToolUse:
				if len(rev) < n {
					rev = append(rev, toolActivity(blk.Get("name").Str, blk.Get("input")))
				}
			case BlockText:
				if t := strings.TrimSpace(blk.Get("text").Str); t != "" && r.LastAssistant == "" {
					r.LastAssistant = t
				}
			}
		}
		return len(rev) >= n && r.LastAssistant != ""
	})
	for i := len(rev) - 1; i >= 0; i-- {
		r.Tools = append(r.Tools, rev[i])
	}
	if err != nil {
		return r, fmt.Errorf("read transcript tail: %w", err)
	}
	return r, nil
}

func toolActivity(name string, input gjson.Result) agent.Activity {
	a := agent.Activity{Tool: name}
	for _, k := range pathKeys {
		if p := input.Get(k).Str; p != "" {
			a.Paths = append(a.Paths, p)
		}
	}
	return a
}
