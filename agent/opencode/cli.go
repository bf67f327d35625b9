package opencode

import (
	"strings"

	"github.com/tether-dev/tether/agent"
)

// ParseResume implements agent.CLI:
//
//	opencode [dir] [-s ID | --session ID | --session=ID | -c | --continue] …
//	opencode run [-s ID | -c] [--fork] [message…]
//
// Only the first of them counts; everything else passes through.
func (*Agent) ParseResume(args []string) agent.ResumeArgs {
	r := agent.ResumeArgs{At: -1}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "run" && len(out) == 0:
			r.Print = true
		case a == "--fork":
			r.Fork = true
		case r.Kind != "":
		case (a == "-s" || a == "--session") && i+1 < len(args):
			r.Kind, r.ID, r.At = "id", args[i+1], i+1
			i++
			continue
		case strings.HasPrefix(a, "--session="):
			r.Kind, r.ID, r.At, r.IDPrefix = "id", strings.TrimPrefix(a, "--session="), i, "--session="
			continue
		case a == "-c" || a == "--continue":
			r.Kind = "continue"
			continue
		}
		out = append(out, a)
	}
	r.Fresh = out
	return r
}

// AppendSystemPrompt implements agent.CLI: OpenCode's command line has no
// way to add to the system prompt; args are returned as they are.
func (*Agent) AppendSystemPrompt(args []string, _ string) []string { return args }

// ContextFiles implements agent.CLI: OpenCode reads the project's
// AGENTS.md.
func (*Agent) ContextFiles() []string { return []string{"AGENTS.md"} }
