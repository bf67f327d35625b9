package codex

import (
	"strings"

	"github.com/tether-dev/tether/agent"
)

// ParseResume implements agent.CLI:
//
//	codex [global flags] resume [ID|--last] [prompt…]
//	codex [global flags] exec [flags] resume [ID|--last] [prompt…]
func (*Agent) ParseResume(args []string) agent.ResumeArgs {
	r := agent.ResumeArgs{At: -1}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "exec" || a == "e" {
			r.Print = true
		}
		if a != "resume" || r.Kind != "" {
			out = append(out, a)
			continue
		}
		switch {
		case i+1 < len(args) && args[i+1] == "--last":
			r.Kind = "last"
			i++
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			r.Kind, r.ID, r.At = "id", args[i+1], i+1
			i++
		default:
			r.Kind = "picker"
		}
	}
	r.Fresh = out
	return r
}

// AppendSystemPrompt implements agent.CLI: Codex's command line has no way
// to add to the system prompt; args are returned as they are.
func (*Agent) AppendSystemPrompt(args []string, _ string) []string { return args }

// ContextFiles implements agent.CLI.
func (*Agent) ContextFiles() []string { return []string{"AGENTS.md", "AGENTS.override.md"} }
