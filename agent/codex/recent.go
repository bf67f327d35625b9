package codex

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// Response item payload types a summary looks at.
const (
	ItemMessage        = "message"
	ItemFunctionCall   = "function_call"
	ItemCustomToolCall = "custom_tool_call"
	ItemLocalShellCall = "local_shell_call"
)

// patchFile finds the files an apply_patch names (compiled on first use,
// like stateDBName).
var patchFile = lazyRE{expr: `(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$`}

// Recent reads the end of a rollout: the last n tool calls (name and
// paths only) and the last assistant text, scanning a bounded tail
// backwards.
func Recent(open jsonl.Opener, path string, lim jsonl.TailLimits, n int) (agent.Recent, error) {
	var r agent.Recent
	var rev []agent.Activity // newest first
	_, _, err := jsonl.Tail(open, path, lim, func(line []byte) bool {
		if !bytes.Contains(line, []byte(TypeResponseItem)) || !gjson.ValidBytes(line) {
			return false
		}
		rec := gjson.ParseBytes(line)
		if rec.Get("type").Str != TypeResponseItem {
			return false
		}
		p := rec.Get("payload")
		switch p.Get("type").Str {
		case ItemMessage:
			if p.Get("role").Str == "assistant" && r.LastAssistant == "" {
				r.LastAssistant = assistantText(p.Get("content"))
			}
		case ItemFunctionCall, ItemCustomToolCall, ItemLocalShellCall:
			if len(rev) < n {
				rev = append(rev, callActivity(p))
			}
		}
		return len(rev) >= n && r.LastAssistant != ""
	})
	for i := len(rev) - 1; i >= 0; i-- {
		r.Tools = append(r.Tools, rev[i])
	}
	if err != nil {
		return r, fmt.Errorf("read rollout tail: %w", err)
	}
	return r, nil
}

func assistantText(content gjson.Result) string {
	var parts []string
	content.ForEach(func(_, blk gjson.Result) bool {
		if t := strings.TrimSpace(blk.Get("text").Str); t != "" {
			parts = append(parts, t)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// callActivity names a call and the paths in it: a path or workdir
// argument, or the files an apply_patch touches. Commands are not kept.
func callActivity(p gjson.Result) agent.Activity {
	a := agent.Activity{Tool: p.Get("name").Str}
	if a.Tool == "" {
		a.Tool = "local_shell"
	}
	args := gjson.Parse(p.Get("arguments").Str)
	for _, k := range []string{"path", "file_path", "workdir"} {
		if v := args.Get(k).Str; v != "" {
			a.Paths = append(a.Paths, v)
		}
	}
	for _, m := range patchFile.get().FindAllStringSubmatch(p.Get("input").Str, -1) {
		a.Paths = append(a.Paths, strings.TrimSpace(m[1]))
	}
	return a
}
